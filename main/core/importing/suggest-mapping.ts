import { FIELDS } from '../model/field-catalogue.js';
import { headerFingerprint, normaliseHeader, type MappingProfile } from '../model/mapping-profile.js';

/**
 * Suggests a profile for an unknown layout: a header matches a field by its template column name, its label or a
 * known synonym ("DOB", "Post Code", "Patient Surname"), compared after normalising case, spaces and punctuation,
 * and also with a leading "patient"/"customer" dropped. Each field takes the first header that matches it.
 */

const PREFIXES = ['patient', 'customer', 'pt'];

const lookup = new Map<string, string>();
for (const field of FIELDS) {
  for (const name of [field.column, field.label, ...field.synonyms]) {
    const key = normaliseHeader(name);
    if (key && !lookup.has(key)) lookup.set(key, field.column);
  }
}

/** The template column a header names, if any. */
export function matchHeader(header: string): string | undefined {
  const key = normaliseHeader(header);
  if (!key) return undefined;
  const exact = lookup.get(key);
  if (exact) return exact;
  for (const prefix of PREFIXES) {
    if (key.startsWith(prefix) && key.length > prefix.length) {
      const rest = lookup.get(key.slice(prefix.length));
      if (rest) return rest;
    }
  }
  return undefined;
}

/** Common single-letter sex codes; the admin can change the map before saving the profile. */
const SEX_CODES: Record<string, string> = { M: 'Male', F: 'Female', O: 'Other', U: 'Unknown' };

export function suggestMapping(headers: string[]): MappingProfile {
  const columns: Record<string, string> = {};
  for (const header of headers) {
    const column = matchHeader(header);
    if (column && !(column in columns)) columns[column] = header;
  }
  return {
    name: 'suggested',
    headerFingerprint: headerFingerprint(headers),
    columns,
    constants: {},
    valueMaps: 'gender' in columns ? { gender: { ...SEX_CODES } } : {},
  };
}

/** How many cells of a row name a known field: used to find the header row below title rows. */
export function countKnownHeaders(cells: string[]): number {
  const seen = new Set<string>();
  for (const cell of cells) {
    const column = matchHeader(cell);
    if (column) seen.add(column);
  }
  return seen.size;
}
