/**
 * UK format rules that work offline. Each returns a reason (a sentence ending) when the value is wrong, or
 * undefined. Bounds are deliberately generous: they catch slips (an extra zero, a date typed into a quantity),
 * not unusual prescriptions.
 */

export const MAX_QUANTITY = 10_000;
export const MAX_PACKS = 1_000;
export const MAX_REPEATS = 52;
export const MAX_AGE_YEARS = 130;

/** A dosage that is digits alone (`30`, `2.5`): a label would tell the patient only that. */
export const DOSAGE_NUMBER_ONLY = /^\d+(?:[.,]\d+)?$/;

// The Royal Mail postcode shapes (outward code A9, A99, AA9, AA99, A9A, AA9A; inward 9AA), with or without the
// space, plus the Girobank special case.
const UK_POSTCODE =
  /^(?:GIR ?0AA|[A-PR-UWYZ](?:\d[A-HJKPSTUW]?|\d{2}|[A-HK-Y]\d[ABEHMNPRV-Y]?|[A-HK-Y]\d{2}) ?\d[ABD-HJLNP-UW-Z]{2})$/i;

// The NHS Data Dictionary's pseudo-postcodes (ZZ99 then a digit, a letter and Z), which NHS systems such as Cerner
// Millennium write where a patient has no postcode: ZZ99 3VZ no fixed abode, the others a country only.
const PSEUDO_POSTCODE = /^ZZ99 ?\d[A-Z]Z$/i;

export function postcodeReason(value: string): string | undefined {
  const trimmed = value.trim();
  if (UK_POSTCODE.test(trimmed)) return undefined;
  if (PSEUDO_POSTCODE.test(trimmed)) {
    const meaning = /^ZZ99 ?3VZ$/i.test(trimmed) ? 'no fixed abode' : 'no postcode known, only a country';
    return `is an NHS pseudo-postcode (${meaning}), not an address a courier can deliver to: ask the clinic for the address to deliver to`;
  }
  return 'is not a UK postcode (e.g. LS1 1AA)';
}

/**
 * A UK postcode as Royal Mail writes it (`ls14ap` → `LS1 4AP`): upper case, one space before the three-character
 * inward code. Undefined when the value is no UK postcode the check above accepts (kept exactly, and refused there).
 */
export function ukPostcodeNormalForm(value: string): string | undefined {
  const trimmed = value.trim();
  if (!UK_POSTCODE.test(trimmed)) return undefined;
  const compact = trimmed.replace(' ', '').toUpperCase();
  return `${compact.slice(0, -3)} ${compact.slice(-3)}`;
}

// The United Kingdom as senders write it where a three-letter ISO 3166 code (GBR) is wanted: its two-letter code,
// `UK` (reserved, no ISO code), its names and its nations (ISO 3166-2 GB-ENG...). Compared upper-cased, dots dropped.
const UK_NAMES = new Set([
  'GB',
  'UK',
  'UNITED KINGDOM',
  'GREAT BRITAIN',
  'BRITAIN',
  'ENGLAND',
  'SCOTLAND',
  'WALES',
  'NORTHERN IRELAND',
  'GB-ENG',
  'GB-SCT',
  'GB-WLS',
  'GB-NIR',
]);

/** What to write instead of a country value that is the United Kingdom but not GBR; undefined for any other. */
export function ukCountryReason(value: string): string | undefined {
  const key = value.trim().toUpperCase().replaceAll('.', '').replace(/\s+/g, ' ');
  if (!UK_NAMES.has(key)) return undefined;
  return 'is not valid: the country code has three letters (ISO 3166), and the United Kingdom is GBR: write GBR';
}

// A local part, then a domain of dot-separated labels: no part can match what its neighbour matches, so a long
// value is read in one pass (a pattern whose parts overlap takes time in the square of its length). Neither part
// holds what only surrounds an address (< > ( ) [ ] \ , ; : "): a link's `mailto:`, a mail program's brackets.
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@.<>()[\]\\,;:"]+(?:\.[^\s@.<>()[\]\\,;:"]+)+$/;
/** The longest address mail can carry (RFC 5321's path limit). */
const EMAIL_MAX = 254;

/**
 * An address as web pages, mail programs and spreadsheets' hyperlinks write it (`mailto:alex@…`, `<alex@…>`,
 * `alex@…;` copied from a list) was read as valid and would have been sent with that text: said, never mended.
 */
export function emailReason(value: string): string | undefined {
  if (value.length > EMAIL_MAX) return `is longer than an email address can be (${EMAIL_MAX} characters)`;
  if (EMAIL.test(value)) return undefined;
  const bare = value
    .replace(/^mailto:/i, '')
    .replace(/^<([^<>]*)>$/, '$1')
    .replace(/[;,]+$/, '');
  const alone = bare !== value && EMAIL.test(bare) ? ` (${bare})` : '';
  if (/^mailto:/i.test(value)) return `is written as a link (mailto:): write the address alone${alone}`;
  if (/[<>]/.test(value))
    return `holds angle brackets (< >), as a mail program writes an address beside a name: write the address alone${alone}`;
  if (/[;,]\s*$/.test(value))
    return `ends in ${quoteEnd(value)}, as a list of addresses does: write one address alone${alone}`;
  return 'is not an email address';
}

const quoteEnd = (value: string) => `'${value.trimEnd().slice(-1)}'`;

// What a spreadsheet shows for a long number it has already rounded, e.g. 4.47701E+11.
const ROUNDED = /^\d(?:[.,]\d+)?[eE]\+?\d+$/;

/**
 * UK numbers: 0 then 9 or 10 digits, or +44 / 0044 instead of the 0; spaces, dashes, dots and brackets allowed. What
 * a spreadsheet makes of a phone number stored as a number (the leading 0 dropped, a long one rounded) is said as
 * such, with what to write: the importer never adds the 0 itself. `hl7`: the value is an HL7 field's (it has no
 * column), so the sentence names the sending system instead.
 */
export function ukPhoneReason(value: string, hl7 = false): string | undefined {
  if (ROUNDED.test(value)) {
    return hl7
      ? 'was sent as a rounded number, its digits lost (the sending system holds it as a number): ask the sender for the phone number as its digits, as text'
      : 'looks like a spreadsheet turned the phone number into a rounded number, losing digits; format the column as text and export again';
  }
  // A number column of a database or spreadsheet export (`7700900123.0`): its point is no separator, its 0 is lost.
  const decimal = /^(\d{9,13})\.0+$/.exec(value);
  if (decimal) {
    const n = decimal[1]!;
    const meant = /^[1-9]\d{8,9}$/.test(n) ? `0${n}` : /^44[1-9]\d{8,9}$/.test(n) ? `+${n}` : undefined;
    if (hl7) {
      return `was sent as a decimal number ('.0' after it), as a sending system that holds it as a number writes it, which also drops a phone number's leading 0 or +${meant ? `: if it is ${meant}, write that in the preview` : ''}; ask the sender to send it as text`;
    }
    return `was written as a decimal number ('.0' after it), as an export writes a column of numbers, which also drops a phone number's leading 0 or +${meant ? `: if it is ${meant}, write that` : ''}; export the column as text`;
  }
  // `'07700900123`: an export made for Excel keeps the 0 with an apostrophe, which is in the CSV cell itself.
  if (value.startsWith("'") && value.length > 1 && ukPhoneReason(value.slice(1), hl7) === undefined) {
    return `starts with an apostrophe ('), which a spreadsheet uses to keep digits as text and which is no part of the number: write ${value.slice(1)}`;
  }
  if (!/^[\d\s()+.-]+$/.test(value)) return 'is not a phone number';
  // "+44 (0)20 ..." is a common way to write it: the (0) is not dialled from abroad.
  const digits = value.replace('(0)', '').replace(/[\s().-]/g, '');
  if (/^(?:0|\+44|0044)[1-9]\d{8,9}$/.test(digits)) return undefined;
  // Digits alone are what a spreadsheet writes of a number; one written with brackets or dashes ((847) 234-5600, as
  // US systems and their HL7 samples write them) was typed so, and is another country's number, not a lost 0.
  if (/^[1-9]\d{8,9}$/.test(digits) && /^\d+$/.test(value)) {
    // In HL7 no spreadsheet is involved: a sending system holding the number as a number dropped the 0, or it is
    // another country's number written without a country code.
    return hl7
      ? `has no leading 0 or +44: if it is 0${digits} (a UK number whose 0 the sending system dropped), write that in the preview and ask the sender to send it whole; a number of another country cannot be used`
      : `has no leading 0, as a spreadsheet drops it from a number: if it is 0${digits}, write that and keep the column as text`;
  }
  if (/^[1-9]\d{8,9}$/.test(digits)) {
    return 'is not a UK phone number: it has no leading 0 or +44 (a number of another country, such as a US one?); write a UK number, or leave the field empty';
  }
  if (/^44[1-9]\d{8,9}$/.test(digits)) return `starts with the country code 44 without its +: write +${digits}`;
  return 'is not a UK phone number (e.g. 07700 900123 or +44 7700 900123)';
}

/** GMC and GPhC numbers are 7 digits; an NMC PIN is 2 digits, a letter, 4 digits and a letter (e.g. 12A3456E). */
export function registrationNumberReason(value: string): string | undefined {
  return /^\d{7}$/.test(value) || /^\d{2}[A-Z]\d{4}[A-Z]$/i.test(value)
    ? undefined
    : 'is not a GMC or GPhC number (7 digits) or an NMC PIN (e.g. 12A3456E)';
}

export function wholeNumberReason(value: unknown, min: number, max: number): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined; // the schema reports the type
  if (value < min) return min === 1 ? 'must be at least 1' : `must be at least ${min}`;
  if (value > max) return `is more than ${max.toLocaleString('en-GB')}, which looks like a slip`;
  return undefined;
}

let bounds: { time: number; todayIso: string; oldest: string } | undefined;

/** `iso` is `YYYY-MM-DD`; `today` decides what "future" means. */
export function dateOfBirthReason(iso: string, today: Date): { code: string; reason: string } | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return undefined; // the schema reports the format
  if (bounds?.time !== today.getTime()) {
    const todayIso = today.toISOString().slice(0, 10);
    const oldest = `${String(today.getUTCFullYear() - MAX_AGE_YEARS).padStart(4, '0')}${todayIso.slice(4)}`;
    bounds = { time: today.getTime(), todayIso, oldest };
  }
  if (iso > bounds.todayIso) return { code: 'dateOfBirth.future', reason: 'is in the future' };
  if (iso < bounds.oldest) {
    return { code: 'dateOfBirth.implausible', reason: `would make the patient over ${MAX_AGE_YEARS} years old` };
  }
  return undefined;
}
