/**
 * SNOMED CT identifier checks for dm+d codes, usable offline by the UI and the core alike. An SCTID is digits
 * only, 6 to 18 long, without a leading zero; its last digit is a Verhoeff check digit and the two digits before
 * it are the partition identifier: '00' for a concept in the short (international) format, '10' for a concept in
 * the long format with a namespace, which is what most dm+d VMP/AMP codes are. Other partitions name
 * descriptions ('01', '11') or relationships ('02', '12'), which are never products.
 */

// The dihedral group D5 multiplication table, the position permutation and the inverse table of Verhoeff's scheme.
const D: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const P: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
const INV: readonly number[] = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];

function verhoeffState(digits: string, offset: number): number {
  let c = 0;
  for (let i = 0; i < digits.length; i += 1) {
    const digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    c = D[c]![P[(i + offset) % 8]![digit]!]!;
  }
  return c;
}

/** True when the digit string (check digit last) passes Verhoeff's check. */
export function isVerhoeffValid(digits: string): boolean {
  return /^\d+$/.test(digits) && verhoeffState(digits, 0) === 0;
}

/** The Verhoeff check digit to append to a digit string. */
export function verhoeffCheckDigit(digits: string): number {
  if (!/^\d+$/.test(digits)) throw new TypeError('Verhoeff check digits are computed over digits only');
  return INV[verhoeffState(digits, 1)]!;
}

export const SNOMED_CONCEPT_PARTITIONS = ['00', '10'] as const;

export type SnomedIdProblem = 'notDigits' | 'leadingZero' | 'length' | 'partition' | 'checkDigit';

export type SnomedIdCheck = { ok: true } | { ok: false; problem: SnomedIdProblem; message: string };

/** Checks that `id` can be a SNOMED CT concept id (and so a dm+d code); the message says what is wrong. */
export function checkSnomedConceptId(id: string): SnomedIdCheck {
  if (!/^\d+$/.test(id)) return { ok: false, problem: 'notDigits', message: 'a dm+d code has digits only' };
  if (id.startsWith('0')) return { ok: false, problem: 'leadingZero', message: 'a dm+d code never starts with 0' };
  if (id.length < 6 || id.length > 18) {
    return { ok: false, problem: 'length', message: `a dm+d code is 6 to 18 digits long, not ${id.length}` };
  }
  const partition = id.slice(-3, -1);
  if (!(SNOMED_CONCEPT_PARTITIONS as readonly string[]).includes(partition)) {
    return {
      ok: false,
      problem: 'partition',
      message: `partition '${partition}' (the 2nd and 3rd digits from the end) is not a concept's ('00' or '10')`,
    };
  }
  if (!isVerhoeffValid(id)) {
    return { ok: false, problem: 'checkDigit', message: 'its last digit does not match the Verhoeff check digit' };
  }
  return { ok: true };
}
