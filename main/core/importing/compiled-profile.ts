import { FIELDS, fieldIndex } from '../model/field-catalogue.js';
import type { DateInputFormat } from './date-formats.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import type { Problem } from '../model/imported-order.js';

/** A profile turned into per-field arrays once per import, so the per-row work is index lookups only. */
export interface CompiledProfile {
  name: string;
  dateFormat: DateInputFormat | undefined;
  /** By field index. */
  constants: (string | undefined)[];
  /** By field index: exact keys, then a case-insensitive fallback. */
  valueMaps: ({ exact: Map<string, string>; folded: Map<string, string> } | undefined)[];
  /** Problems in the profile itself (unknown column names), reported once per file. */
  problems: Problem[];
}

export function compileProfile(
  profile: Pick<MappingProfile, 'name' | 'constants' | 'valueMaps'> & { dateFormat?: DateInputFormat },
  file: string,
  defaultValueMaps: Record<string, Record<string, string>> = {},
): CompiledProfile {
  const problems: Problem[] = [];
  const resolve = (key: string, what: string): number | undefined => {
    const index = fieldIndex(key);
    if (index === undefined) {
      problems.push({
        severity: 'warning',
        file,
        code: 'profile.unknownField',
        text: `The mapping profile "${profile.name}" names ${what} "${key}", which is not a field of an order; it was ignored.`,
      });
    }
    return index;
  };
  const constants: (string | undefined)[] = FIELDS.map(() => undefined);
  for (const [key, value] of Object.entries(profile.constants)) {
    const index = resolve(key, 'a constant for');
    if (index !== undefined && value.trim() !== '') constants[index] = value.trim();
  }
  const valueMaps: CompiledProfile['valueMaps'] = FIELDS.map(() => undefined);
  const addMaps = (maps: Record<string, Record<string, string>>, report: boolean) => {
    for (const [key, map] of Object.entries(maps)) {
      const index = report ? resolve(key, 'a value map for') : fieldIndex(key);
      if (index === undefined) continue;
      const entry = (valueMaps[index] ??= { exact: new Map(), folded: new Map() });
      for (const [from, to] of Object.entries(map)) {
        entry.exact.set(from.trim(), to);
        entry.folded.set(from.trim().toLowerCase(), to);
      }
    }
  };
  // The profile's own entries are added last so they win over the defaults.
  addMaps(defaultValueMaps, false);
  addMaps(profile.valueMaps, true);
  return { name: profile.name, dateFormat: profile.dateFormat, constants, valueMaps, problems };
}

export function mapValue(profile: CompiledProfile, index: number, value: string): string {
  const map = profile.valueMaps[index];
  if (!map) return value;
  return map.exact.get(value) ?? map.folded.get(value.toLowerCase()) ?? value;
}
