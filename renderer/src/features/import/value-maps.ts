/** A mapping profile's value maps as the admin types them: one `column: file value => our value` per line. */

export type StringMap = Record<string, string>;
export const asStringMap = (value: unknown): StringMap =>
  value && typeof value === 'object'
    ? Object.fromEntries(
        Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      )
    : {};

/** `gender: M => Male` lines ↔ value maps. */
export function valueMapsToText(maps: unknown): string {
  const lines: string[] = [];
  if (maps && typeof maps === 'object') {
    for (const [column, map] of Object.entries(maps)) {
      for (const [from, to] of Object.entries(asStringMap(map))) lines.push(`${column}: ${from} => ${to}`);
    }
  }
  return lines.join('\n');
}

export function parseValueMaps(text: string): { maps: Record<string, StringMap>; bad: string[] } {
  const maps: Record<string, StringMap> = {};
  const bad: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const match = /^([A-Za-z0-9]+)\s*:\s*(.*?)\s*=>\s*(.*)$/.exec(line);
    if (!match) {
      bad.push(line);
      continue;
    }
    const [, column = '', from = '', to = ''] = match;
    (maps[column] ??= {})[from] = to.trim();
  }
  return { maps, bad };
}

/** An HL7 field map as typed: one `column: PATH` per line (`courierCode: ZDL-1`); the core checks the paths. */
export function parseFieldMap(text: string): { map: StringMap; bad: string[] } {
  const map: StringMap = {};
  const bad: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const match = /^([A-Za-z0-9]+)\s*:\s*(\S+)$/.exec(line);
    if (match) map[match[1]!] = match[2]!;
    else bad.push(line);
  }
  return { map, bad };
}

export const fieldMapToText = (map: unknown): string =>
  Object.entries(asStringMap(map))
    .map(([column, path]) => `${column}: ${path}`)
    .join('\n');
