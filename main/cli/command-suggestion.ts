/**
 * What to say after "unknown command", from the command words alone (never an option's value, which may be a
 * secret): a group's commands (`batch` → list, show, …), or the command nearest a mistyped one (`stauts` → status,
 * `btach shwo` → batch show).
 */
export function commandSuggestion(words: readonly string[], commands: readonly string[]): string | undefined {
  const [typed = '', next] = words;
  const groups = new Map<string, string[]>();
  for (const command of commands) {
    const [head = '', sub] = command.split(' ');
    if (!groups.has(head)) groups.set(head, []);
    if (sub) groups.get(head)!.push(sub);
  }
  const head = groups.has(typed) ? typed : nearest(typed, [...groups.keys()]);
  if (head === undefined) return undefined;
  const subs = groups.get(head)!;
  if (subs.length === 0) return `did you mean rx-batch ${head}?`;
  const sub = next === undefined ? undefined : subs.includes(next) ? next : nearest(next, subs);
  return sub === undefined
    ? `rx-batch ${head} takes one of: ${subs.join(', ')}`
    : `did you mean rx-batch ${head} ${sub}?`;
}

/**
 * The candidate nearest `typed` within a small edit distance (at most 2, and less than half its length); none when
 * two are as near (`logn`: log or login), rather than a guess.
 */
function nearest(typed: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.floor((typed.length - 1) / 2));
  let best: string[] = [];
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(typed.toLowerCase(), candidate);
    if (distance < bestDistance) [best, bestDistance] = [[candidate], distance];
    else if (distance === bestDistance) best.push(candidate);
  }
  return best.length === 1 ? best[0] : undefined;
}

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`: optimal string alignment distance. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
