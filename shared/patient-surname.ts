import { z } from 'zod';

/**
 * Patient-surname search (orders.list `patientSurname`). The surname itself never appears in a list view, a log
 * or an event: main keeps a normalised key per order (migration 009) and answers with the usual order views.
 * The same key function reads the stored surname and the admin's filter, so "bronte" finds "Brontë" and
 * "O'Brien" finds "O’Brien".
 */

/** Letters that NFKD does not take apart, spelled as a person without the key would type them. */
const FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
  '\u2019': "'",
  '\u2018': "'",
  '\u02bc': "'",
  '`': "'",
  '\u2010': '-',
  '\u2011': '-',
  '\u2013': '-',
  '\u2014': '-',
};
const FOLDABLE = new RegExp(`[${Object.keys(FOLDS).join('')}]`, 'gu');

/** Case- and accent-free form of a surname (or of what the admin typed): compared byte for byte in SQLite. */
export function surnameSearchKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(FOLDABLE, (letter) => FOLDS[letter] ?? letter)
    .replace(/\s+/gu, ' ')
    .trim();
}

export const PATIENT_SURNAME_FILTER_MAX = 100;

/** The filter as the contract takes it: trimmed, 1–100 characters, with at least one letter or digit. */
export const patientSurnameFilterSchema = z
  .string()
  .trim()
  .min(1)
  .max(PATIENT_SURNAME_FILTER_MAX)
  .refine((text) => /[\p{L}\p{N}]/u.test(surnameSearchKey(text)), 'type at least one letter of the surname');
