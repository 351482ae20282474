import type { CodeLists } from '../../../shared/environment.js';
import { describeSource, locationOf, problem, quote, type Location } from './problems.js';
import type { Problem, Provenance } from '../model/imported-order.js';
import { trimEndWhere } from '../../../shared/trim-end.js';

/**
 * Sex written as a code rather than as one of the environment's genders (Male, Female, Other, Unknown): HL7 table
 * 0001 (administrative sex, PID-8: M, F, O, U, A ambiguous, N not applicable), and the NHS Data Dictionary's person
 * gender codes and ISO 5218 (1 male, 2 female, 0 not known, 9 not specified). Clinic systems write them in PID-8 and
 * in CSV exports alike. Each code is the environment's value whose name (as `codeKey` reads it) is the first of
 * `names` it has. A code that means the same as that value is read silently; one whose meaning the service cannot
 * carry (ambiguous, not applicable, a number) is read with a warning naming what was assumed; one with no value
 * near it in the environment is an error naming the field and the values it could be mapped to.
 */

interface SexCode {
  /** The environment's names it may become, best first. */
  names: readonly string[];
  /** What the code means, for the sentences. */
  meaning: string;
  /** Names (of `names`) it becomes without a warning: the same meaning. */
  same: readonly string[];
  /** Why it was read as it was, where it is a guess or loses something. */
  why?: string;
  numeric?: boolean;
}

const NUMERIC_WHY =
  '1 male, 2 female, 0 not known, 9 not specified, as the NHS Data Dictionary and ISO 5218 number them';

const SEX_CODES: Record<string, SexCode> = {
  M: { names: ['male'], meaning: 'male', same: ['male'] },
  F: { names: ['female'], meaning: 'female', same: ['female'] },
  O: { names: ['other'], meaning: 'other', same: ['other'] },
  U: { names: ['unknown', 'not known'], meaning: 'unknown', same: ['unknown', 'not known'] },
  A: {
    names: ['ambiguous', 'indeterminate', 'intersex', 'other'],
    meaning: 'ambiguous',
    same: ['ambiguous'],
    why: 'neither male nor female; the order cannot say ambiguous',
  },
  N: {
    names: ['not applicable', 'not specified', 'unknown', 'not known'],
    meaning: 'not applicable',
    same: ['not applicable'],
    why: 'the order cannot say that sex does not apply, so it carries no sex',
  },
  // The same meanings written out, as HL7 tables and the NHS Data Dictionary name them ('Indeterminate': unable to be
  // classified as male or female).
  AMBIGUOUS: {
    names: ['ambiguous', 'indeterminate', 'intersex', 'other'],
    meaning: 'ambiguous',
    same: ['ambiguous'],
    why: 'neither male nor female; the order cannot say ambiguous',
  },
  INDETERMINATE: {
    names: ['indeterminate', 'ambiguous', 'intersex', 'other'],
    meaning: 'indeterminate',
    same: ['indeterminate'],
    why: 'neither male nor female; the order cannot say indeterminate',
  },
  'NOT APPLICABLE': {
    names: ['not applicable', 'not specified', 'unknown', 'not known'],
    meaning: 'not applicable',
    same: ['not applicable'],
    why: 'the order cannot say that sex does not apply, so it carries no sex',
  },
  'NOT KNOWN': { names: ['not known', 'unknown'], meaning: 'not known', same: ['not known', 'unknown'] },
  'NOT SPECIFIED': {
    names: ['not specified', 'unknown', 'not known'],
    meaning: 'not specified',
    same: ['not specified'],
    why: 'the order cannot say it was not given, so it carries no sex',
  },
  '1': { names: ['male', 'm'], meaning: 'male', same: [], numeric: true, why: NUMERIC_WHY },
  '2': { names: ['female', 'f'], meaning: 'female', same: [], numeric: true, why: NUMERIC_WHY },
  '0': { names: ['not known', 'unknown', 'u'], meaning: 'not known', same: [], numeric: true, why: NUMERIC_WHY },
  '9': {
    names: ['not specified', 'unknown', 'not known', 'u'],
    meaning: 'not specified',
    same: [],
    numeric: true,
    why: "9 is 'not specified' or 'indeterminate' in NHS codes and 'not applicable' in ISO 5218",
  },
};

/** How a code is compared with the environment's list: case, surrounding and doubled spaces, trailing dots aside. */
const isDot = (char: string): boolean => char === '.';

export const codeKey = (value: string): string =>
  trimEndWhere(value.trim(), isDot).replace(/\s+/g, ' ').trim().toLowerCase();

export interface SexCodeInput {
  file: string;
  fallback: Location;
  codeLists: CodeLists;
}

export interface SexCodeResult {
  /** The environment's value to use; undefined when none fits (the error says so). */
  value?: string;
  problem?: Problem;
}

/**
 * The gender a sex code stands for, with the warning or error to report; undefined when `value` is not such a code
 * or is already one of the environment's genders. The profile's value maps were applied before: a map always wins.
 */
export function readSexCode(
  value: string,
  origin: Provenance | undefined,
  input: SexCodeInput,
): SexCodeResult | undefined {
  const genders = input.codeLists.genders;
  if (genders.includes(value)) return undefined;
  const raw = value.trim();
  const code = SEX_CODES[codeKey(raw).toUpperCase()];
  if (!code) return undefined;
  const from = describeSource(origin);
  const where = locationOf(origin, input.fallback);
  // A letter or a number is a code, to be named as such; a word ('Indeterminate') speaks for itself.
  const table = code.numeric
    ? 'is a numeric sex code'
    : raw.length === 1
      ? `is HL7 table 0001's code for ${code.meaning}`
      : 'has no gender of its own in this environment';
  let match: string | undefined;
  let name: string | undefined;
  for (const wanted of code.names) {
    match = genders.find((entry) => codeKey(entry) === wanted);
    if (match) {
      name = wanted;
      break;
    }
  }
  if (!match) {
    return {
      problem: problem(
        'error',
        input.file,
        where,
        'enum.unknown',
        `Gender ${quote(value)}${from ? ` (${from})` : ''} ${table}, and none of this environment's genders (${genders.join(', ')}) means ${code.meaning}: map ${quote(raw)} to one of them in the mapping profile, or correct the value.`,
        'customer.gender',
      ),
    };
  }
  if (code.same.includes(name!)) return { value: match };
  const text = code.numeric
    ? `Gender ${quote(value)}${from ? ` (${from})` : ''} is a numeric sex code, read as ${quote(match)} (${code.why}); if the sender means another code, map it in the mapping profile.`
    : `Gender ${quote(value)}${from ? ` (${from})` : ''} ${table}, read as ${quote(match)}, the nearest of this environment's genders (${code.why}); if the clinic means another, map ${quote(raw)} in the mapping profile.`;
  return {
    value: match,
    problem: problem(
      'warning',
      input.file,
      where,
      code.numeric ? 'gender.numericCode' : 'gender.approximated',
      text,
      'customer.gender',
    ),
  };
}
