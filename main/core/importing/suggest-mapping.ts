import { FIELDS } from '../model/field-catalogue.js';
import { headerFingerprint, normaliseHeader, type DateFormat, type MappingProfile } from '../model/mapping-profile.js';

/**
 * Suggests a profile for an unknown layout: a header matches a field by its template column name, its label or a
 * known synonym ("DOB", "Post Code", "Patient Surname"), compared after normalising case, spaces and punctuation,
 * and also with a leading "patient"/"customer" dropped, or a unit, format or example in brackets after it. Each field
 * takes the first header that matches it; a date of birth header stating its format in brackets sets the date format.
 */

const PREFIXES = ['patient', 'customer', 'pt'];

const lookup = new Map<string, string>();
for (const field of FIELDS) {
  for (const name of [field.column, field.label, ...field.synonyms]) {
    const key = normaliseHeader(name);
    if (key && !lookup.has(key)) lookup.set(key, field.column);
  }
}

// A note in brackets after a header's name: a unit, a format or an example (`Quantity (tablets)`, `DOB
// (dd/mm/yyyy)`, `Mobile [e.g. 07700 900123]`). Read without it when the name alone is a field's, unless the note
// says which of two fields it is (`Postcode (delivery)`, `Address (2)`): then only the whole header counts.
const NOTE = /^(.*?\S)\s*[([{]([^()[\]{}]*)[)\]}]\s*$/;
const QUALIFIER =
  /\b(?:home|deliver\w*|ship\w*|bill\w*|mail\w*|postal|clinic|surgery|practice|prescriber|doctor|gp|pharmacy|work|mobile|office|business|line|first|second|third|other|alt\w*|previous|old|partner|carer|kin|emergency|parent|guardian|contact)\b|^\s*\d+\s*$/i;

function withoutNote(header: string): { name: string; note: string } | undefined {
  const m = NOTE.exec(header);
  if (!m || QUALIFIER.test(m[2]!)) return undefined;
  return { name: m[1]!, note: m[2]!.trim() };
}

/** The template column a header names, if any. */
export function matchHeader(header: string): string | undefined {
  const whole = matchName(header);
  if (whole) return whole;
  const bare = withoutNote(header);
  return bare ? matchName(bare.name) : undefined;
}

// The date formats a header's note can state (compared in lower case, `-`, `/`, `.` and spaces alike).
const NOTED_FORMATS: Record<string, DateFormat> = {
  'yyyy-mm-dd': 'iso',
  'dd-mm-yyyy': 'dd/MM/yyyy',
  'mm-dd-yyyy': 'MM/dd/yyyy',
  'd-m-yy': 'd/M/yy',
  'dd-mm-yy': 'd/M/yy',
  'dd-mmm-yyyy': 'dd-MMM-yyyy',
};

/** The date format a date of birth header states in its note (`DOB (dd/mm/yyyy)`), if it states one. */
function notedDateFormat(header: string): DateFormat | undefined {
  const note = withoutNote(header)
    ?.note.toLowerCase()
    .replace(/^format:?\s*/, '');
  return note === undefined ? undefined : NOTED_FORMATS[note.replace(/[/.\s]/g, '-')];
}

function matchName(header: string): string | undefined {
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
  const dateFormat = columns.dateOfBirth === undefined ? undefined : notedDateFormat(columns.dateOfBirth);
  return {
    name: 'suggested',
    headerFingerprint: headerFingerprint(headers),
    columns,
    constants: {},
    valueMaps: 'gender' in columns ? { gender: { ...SEX_CODES } } : {},
    ...(dateFormat ? { dateFormat } : {}),
  };
}

/** The fields a row's cells name (template columns): used to find the header row below title rows. */
export function knownHeaderColumns(cells: readonly string[]): Set<string> {
  const seen = new Set<string>();
  for (const cell of cells) {
    const column = matchHeader(cell);
    if (column) seen.add(column);
  }
  return seen;
}
