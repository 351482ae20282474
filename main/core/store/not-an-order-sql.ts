/**
 * SQL true for a staged entry whose problems name one of `codes`, as JSON.stringify writes a code (`"code":"…"`): a
 * quote inside a problem's text is escaped (`\"`), so only a code matches. The same text in migration 025's
 * partial index and in the query that counts such entries: SQLite uses the index only for a WHERE that implies its own.
 */
export function namesNotAnOrder(codes: Iterable<string>): string {
  const terms = [...codes].map((code) => `instr(problems, '${JSON.stringify({ code }).slice(1, -1)}') > 0`);
  return `(${terms.join(' OR ')})`;
}
