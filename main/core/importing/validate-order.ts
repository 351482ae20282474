import type { CodeLists } from '../../../shared/environment.js';
import { createWithClinicV1Schema } from '../../../shared/orders.js';
import { checkSnomedConceptId } from '../../../shared/snomed.js';
import { passesCreateWithClinicV1 } from '../../../shared/create-with-clinic-check.js';
import { describePath, verbFor } from '../model/field-catalogue.js';
import { capitalise, describeSource, locationOf, problem, quote, type Location } from './problems.js';
import type { Problem, Provenance } from '../model/imported-order.js';
import {
  DOSAGE_NUMBER_ONLY,
  MAX_PACKS,
  MAX_QUANTITY,
  MAX_REPEATS,
  dateOfBirthReason,
  emailReason,
  postcodeReason,
  registrationNumberReason,
  ukCountryReason,
  ukPhoneReason,
  wholeNumberReason,
} from './uk-rules.js';

/**
 * Offline validation of a create-with-clinic v1 body: the shared zod schema plus the UK rules. One problem per
 * field at most: a specific rule (e.g. a bad check digit) is reported instead of the schema's generic message.
 */

export interface ValidationContext {
  codeLists: CodeLists;
  /** Defaults to now. */
  today?: Date;
  /** Defaults to an empty name (the preview edits one order, not a file). */
  file?: string;
  /** Locates each field's problem at its row or message. */
  provenance?: Record<string, Provenance>;
  /** The same as a lookup (the importer's table, which builds no record); wins over `provenance`. */
  provenanceLookup?: { get(path: string): Provenance | undefined };
  /** Where problems about absent fields point. */
  fallback?: Location;
  /** Where problems about an item's absent fields point, by item (a CSV item's own row); else `fallback`. */
  itemFallbacks?: readonly (Location | undefined)[];
  /** Paths already reported (e.g. unreadable dates), skipped here. */
  skip?: ReadonlySet<string>;
  /**
   * The importer saw no U+FFFD nor control character (NOT_TEXT) in the text it read so far nor U+FFFD in the profile,
   * so no value can hold one and the walk through the body for them is skipped (it cost a fifth of a CSV import's
   * parsing).
   */
  noUnreadableText?: boolean;
}

type Obj = Record<string, unknown>;

// Static lists (paths included), so validating an order allocates nothing for them.
const POSTCODES = [
  ['homeAddress', 'postCode', 'homeAddress.postCode'],
  ['deliveryAddress', 'postCode', 'deliveryAddress.postCode'],
  ['clinicInformation', 'postcode', 'clinicInformation.postcode'],
] as const;
const CONTACTS = [
  ['customer', 'email', 'email', 'customer.email'],
  ['clinicInformation', 'contactEmail', 'email', 'clinicInformation.contactEmail'],
  ['customer', 'telephone', 'phone', 'customer.telephone'],
  ['clinicInformation', 'contactNumber', 'phone', 'clinicInformation.contactNumber'],
] as const;
/** The fields whose value must be one of the environment's code lists: body container, key, list, its name. */
export const ENUMS = [
  ['customer', 'title', 'titles', 'titles'],
  ['customer', 'gender', 'genders', 'genders'],
  ['prescription', 'paymentType', 'paymentTypes', 'payment types'],
  ['prescription', 'courierCode', 'courierCodes', 'courier codes'],
  ['prescription', 'currencyCode', 'currencyCodes', 'currency codes'],
] as const;
const obj = (value: unknown): Obj => (value !== null && typeof value === 'object' ? (value as Obj) : {});
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** The problems of one validation, one per field (a class, not closures: nothing allocated per order for it). */
const ITEM_PATH = /^prescribedItems\.(\d+)\./;
const ITEM_FIELDS = ['dmdCode', 'medication', 'dosageInstructions', 'quantity', 'pack', 'productId'];

class Report {
  readonly problems: Problem[] = [];
  #reported: Set<string> | undefined;

  constructor(private readonly ctx: ValidationContext) {}

  add(path: string, code: string, reason: string): void {
    const ctx = this.ctx;
    if (ctx.skip?.has(path) || this.#reported?.has(path)) return;
    (this.#reported ??= new Set()).add(path);
    const provenance = this.provenanceOf(path);
    const from = describeSource(provenance);
    this.problems.push(
      problem(
        'error',
        ctx.file ?? '',
        locationOf(provenance ?? this.itemProvenance(path), this.fallbackOf(path)),
        code,
        `${capitalise(describePath(path))} ${reason}${from ? ` (${from})` : ''}.`,
        path,
      ),
    );
  }

  provenanceOf(path: string): Provenance | undefined {
    return this.ctx.provenanceLookup ? this.ctx.provenanceLookup.get(path) : this.ctx.provenance?.[path];
  }

  /**
   * A field an item lacks has no source of its own: the item's other fields name its row (a CSV's second item is on
   * its own row), where the order's first row would point at another item.
   */
  private itemProvenance(path: string): Provenance | undefined {
    const item = ITEM_PATH.exec(path)?.[0];
    if (item === undefined) return undefined;
    for (const field of ITEM_FIELDS) {
      const found = this.provenanceOf(`${item}${field}`);
      if (found) return found;
    }
    return undefined;
  }

  private fallbackOf(path: string): Location {
    const index = ITEM_PATH.exec(path)?.[1];
    const item = index === undefined ? undefined : this.ctx.itemFallbacks?.[Number(index)];
    return item ?? this.ctx.fallback ?? {};
  }

  /**
   * A delivery address copied from the home one (no delivery field given: the same value from the same source, or
   * absent in both) repeats each home problem, the second time about a field the file does not have. The problem
   * is said once, on the home field, saying it is the delivery address too.
   */
  sayHomeOnce(home: Obj, delivery: Obj): void {
    const problems = this.problems;
    if (!problems.some((p) => p.field?.startsWith('deliveryAddress.'))) return;
    let kept = 0;
    for (const p of problems) {
      const leaf = p.field?.startsWith('deliveryAddress.') ? p.field.slice(16) : undefined;
      const twin =
        leaf === undefined
          ? undefined
          : problems.find((other) => other.code === p.code && other.field === `homeAddress.${leaf}`);
      if (
        twin &&
        home[leaf!] === delivery[leaf!] &&
        sameSource(this.provenanceOf(`homeAddress.${leaf}`), this.provenanceOf(p.field!))
      ) {
        if (!twin.text.endsWith(DELIVERED_HOME)) twin.text += DELIVERED_HOME;
        continue;
      }
      problems[kept++] = p;
    }
    problems.length = kept;
  }

  /** A rule's verdict on `value`: a reason means a problem. */
  withValue(path: string, value: string, code: string, reason: string | undefined): void {
    if (reason) this.add(path, code, `${quote(value)} ${reason}`);
  }
}

/** An NDC as labels print it: labeler, product and package codes, 4-4-2, 5-3-2, 5-4-1 or the 11-digit 5-4-2. */
const NDC = /^(?:\d{4}-\d{4}-\d{2}|\d{5}-\d{3}-\d{2}|\d{5}-\d{4}-\d{1,2})$/;

/** What a decoder puts where the bytes were not text in the file's encoding (U+FFFD, shown as �). */
const UNREADABLE = '\uFFFD';

/**
 * Control characters no text holds (C0 but tab and line breaks, DEL, C1): a stray byte a file's binary check lets
 * through (a few are allowed), or an HL7 `\X..\` escape (`\X00\`, `\X1B\`).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
/** U+FFFD or a control character: text no label can print (what the importers look for before the walk below). */
// eslint-disable-next-line no-control-regex
export const NOT_TEXT = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

const codePoint = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Whether any text in the body holds U+FFFD or a control character (no allocation: most orders have none). */
function hasUnreadable(value: unknown): boolean {
  if (typeof value === 'string') return NOT_TEXT.test(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const entry of value) if (hasUnreadable(entry)) return true;
    return false;
  }
  for (const entry of Object.values(value)) if (hasUnreadable(entry)) return true;
  return false;
}

/**
 * Text a decoder could not read is never sent on: a name with � in it came from a file read in another encoding
 * than it was written in (e.g. a Windows-1252 file imported as UTF-8). Nor is a control character (NUL, BEL, ESC).
 */
function reportUnreadable(value: unknown, path: string, out: Report): void {
  if (typeof value === 'string') {
    if (value.includes(UNREADABLE)) {
      out.add(
        path,
        'text.unreadable',
        `${quote(value)} has characters that could not be read (shown as �): the file was read in another encoding than it was written in; import it again with its encoding`,
      );
    } else if (CONTROL.test(value)) {
      const found = [...new Set(value.match(CONTROLS))].map(codePoint);
      out.add(
        path,
        'text.controlCharacter',
        `${quote(value)} holds ${found.length === 1 ? 'a control character' : 'control characters'} (${found.join(', ')}), which is no text a label or a pharmacy system can show (a stray byte in the file, or an HL7 hex escape such as \\X00\\): remove ${found.length === 1 ? 'it' : 'them'} in the preview, or ask the sender for the value without ${found.length === 1 ? 'it' : 'them'}`,
      );
    }
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const key in value) reportUnreadable((value as Obj)[key], path ? `${path}.${key}` : key, out);
}

/** What a spreadsheet shows of a long number it has rounded: 1.23457E+11. */
const SPREADSHEET_ROUNDED = /^\d(?:[.,]\d+)?[eE]\+?\d+$/;

export function validateOrder(body: unknown, ctx: ValidationContext): Problem[] {
  const today = ctx.today ?? new Date();
  const out = new Report(ctx);
  const problems = out.problems;
  if (ctx.noUnreadableText !== true && hasUnreadable(body)) reportUnreadable(body, '', out);

  const root = obj(body);
  const customer = obj(root.customer);
  const prescription = obj(root.prescription);
  const lists = ctx.codeLists;

  // dm+d codes first: the SNOMED check says exactly what is wrong, the schema only that the pattern failed.
  const items = Array.isArray(root.prescribedItems) ? (root.prescribedItems as unknown[]) : [];
  items.forEach((raw, index) => {
    const item = obj(raw);
    const base = `prescribedItems.${index}`;
    const code = item.dmdCode;
    if (typeof code === 'string' && code !== '') {
      const check = checkSnomedConceptId(code);
      if (!check.ok) {
        // US systems' test messages (and a US supplier's export) carry NDCs: say what the code is, not only its fault.
        const ndc = NDC.test(code) ? '; it is written as a US National Drug Code (NDC), which names a US product' : '';
        out.add(
          `${base}.dmdCode`,
          `dmd.${check.problem}`,
          `${quote(code)} is not a valid dm+d code: ${check.message}${ndc}`,
        );
      }
    }
    const dosage = str(item.dosageInstructions);
    if (dosage && DOSAGE_NUMBER_ONLY.test(dosage)) {
      out.add(
        `${base}.dosageInstructions`,
        'dosage.numberOnly',
        `${quote(dosage)} is only a number, which is no instruction for the patient (a quantity or a code in the dosage's place, or the sender's fields moved by one?): write the instructions in the preview, or ask the sender to send them`,
      );
    }
    const quantity = wholeNumberReason(item.quantity, 1, MAX_QUANTITY);
    if (quantity) out.add(`${base}.quantity`, 'quantity.range', `${quote(item.quantity)} ${quantity}`);
    const pack = wholeNumberReason(item.pack, 1, MAX_PACKS);
    if (pack) out.add(`${base}.pack`, 'pack.range', `${quote(item.pack)} ${pack}`);
  });

  const repeats = wholeNumberReason(prescription.repeatsAllowed, 0, MAX_REPEATS);
  if (repeats)
    out.add('prescription.repeatsAllowed', 'repeats.range', `${quote(prescription.repeatsAllowed)} ${repeats}`);

  const dob = str(customer.dateOfBirth);
  if (dob) {
    const reason = dateOfBirthReason(dob, today);
    if (reason) out.add('customer.dateOfBirth', reason.code, `${quote(dob)} ${reason.reason}`);
  }

  for (const [container, postcodeKey, path] of POSTCODES) {
    const address = obj(root[container]);
    const postcode = str(address[postcodeKey]);
    // Only UK addresses have a UK postcode; other countries are checked by the service.
    if (postcode && (address.countryCode === 'GBR' || address.countryCode === undefined)) {
      out.withValue(path, postcode, 'postcode.format', postcodeReason(postcode));
    }
  }
  for (const [container, key, kind, path] of CONTACTS) {
    const text = str(obj(root[container])[key]);
    if (!text) continue;
    if (kind === 'email') out.withValue(path, text, 'email.format', emailReason(text));
    else out.withValue(path, text, 'telephone.format', ukPhoneReason(text, out.provenanceOf(path)?.kind === 'hl7'));
  }
  const registration = str(obj(root.prescribingDoctor).registrationNumber);
  if (registration) {
    out.withValue(
      'prescribingDoctor.registrationNumber',
      registration,
      'registrationNumber.format',
      registrationNumberReason(registration),
    );
  }
  const orderId = str(prescription.clinicOrderId);
  if (orderId && SPREADSHEET_ROUNDED.test(orderId)) {
    // A long numeric id a spreadsheet rounded: other orders' ids round to it too, so their rows were joined as one.
    // An HL7 message is one order, so none was joined to it; its sending system wrote the id as a number.
    const hl7 = out.provenanceOf('prescription.clinicOrderId')?.kind === 'hl7';
    out.add(
      'prescription.clinicOrderId',
      'orderId.excelMangled',
      hl7
        ? `${quote(orderId)} was sent as a rounded number, losing the order id's last digits (the sending system holds it as a number): ask the sender for the id as its digits, as text`
        : `${quote(orderId)} looks like a spreadsheet turned the order id into a rounded number, losing its last digits, so other orders may have been read under the same id (their rows joined into this order): format the column as text and export again`,
    );
  }
  for (const [container, key, list, what] of ENUMS) {
    const text = str(obj(root[container])[key]);
    if (text && !lists[list].includes(text)) {
      out.add(
        `${container}.${key}`,
        'enum.unknown',
        `${quote(text)} is not one of this environment's ${what} (${lists[list].join(', ')})`,
      );
    }
  }

  // Most orders pass, which the hand-written check says without zod; only when it cannot vouch for the body does
  // the schema itself decide (and name the offending inputs for the messages).
  const parsed = passesCreateWithClinicV1(body)
    ? undefined
    : createWithClinicV1Schema.safeParse(body, { reportInput: true });
  if (parsed && !parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join('.');
      if (path === 'prescribedItems' && issue.code === 'too_small') {
        out.add(path, 'order.noItems', 'are missing: an order needs at least one item');
        continue;
      }
      const input = (issue as { input?: unknown }).input;
      if (input === undefined) {
        out.add(path, 'field.required', `${verbFor(path)} required`);
        continue;
      }
      const code =
        issue.code === 'too_big'
          ? 'field.tooLong'
          : path.endsWith('countryCode')
            ? 'country.format'
            : path.endsWith('currencyCode')
              ? 'currency.format'
              : 'field.invalid';
      const detail =
        code === 'field.tooLong'
          ? issue.message.replace(/^Too big: expected string to have /, 'must have ')
          : issue.message;
      const uk = code === 'country.format' && typeof input === 'string' ? ukCountryReason(input) : undefined;
      out.add(path, code, `${quote(input)} ${uk ?? `is not valid: ${detail}`}`);
    }
  }
  out.sayHomeOnce(obj(root.homeAddress), obj(root.deliveryAddress));
  return problems;
}

const sameSource = (a: Provenance | undefined, b: Provenance | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && describeSource(a) === describeSource(b));
const DELIVERED_HOME =
  ' The order is delivered to the home address (no delivery address is given), so this is the delivery address too.';
