import type { CodeLists } from '../../../shared/environment.js';
import type { CompiledProfile } from './compiled-profile.js';
import { buildOrder, type OrderCells } from './order-builder.js';
import { capitalise, describeSource, locationOf, problem, quote, type Location } from './problems.js';
import { codeKey, readSexCode } from './sex-codes.js';
import { ukPostcodeNormalForm } from './uk-rules.js';
import { importedOrder, type OrderExtras, type ProvenanceTable } from '../model/provenance-table.js';
import type { ImportedOrder, OrderControl, Problem } from '../model/imported-order.js';
import { validateOrder } from './validate-order.js';
import { resolveGroupCancel, type GroupItemsOf } from './group-cancel.js';
import type { PlacerNumbers } from './hl7-placer-group.js';

/** The last steps shared by both importers: build the body, validate it, check for earlier batches, wrap it up. */

export type OrderSink = (order: ImportedOrder, extras?: OrderExtras) => void | Promise<void>;

export interface FinishInput {
  cells: OrderCells;
  profile: CompiledProfile;
  file: string;
  today: Date;
  fallback: Location;
  codeLists: CodeLists;
  /** Problems the importer found before the body existed (rows disagreeing, bad quoting, HL7 structure). */
  extraProblems: Problem[];
  reported: ReadonlySet<string>;
  isKnownOrder?: (clinicCode: string, clinicOrderId: string) => boolean;
  /** HL7 cancels: the ORCs' placer numbers and the items of grouped orders known, to resolve a group's cancel. */
  groupCancel?: { placers: PlacerNumbers; groupItemsOf: GroupItemsOf };
  source: ImportedOrder['source'];
  orderControl?: OrderControl;
  /** The order is already blocked by a problem that makes further checks meaningless. */
  skipValidation?: boolean;
  /** See ValidationContext.noUnreadableText. */
  noUnreadableText?: boolean;
  /** See BuildContext.decimalComma. */
  decimalComma?: boolean;
}

type Obj = Record<string, unknown>;

const ENUM_FIELDS = [
  ['customer', 'title', 'titles'],
  ['customer', 'gender', 'genders'],
  ['prescription', 'paymentType', 'paymentTypes'],
  ['prescription', 'courierCode', 'courierCodes'],
  ['prescription', 'currencyCode', 'currencyCodes'],
] as const;

export { codeKey } from './sex-codes.js';

/**
 * 'mr', 'MR', 'Mr.' or 'mr .' is the environment's 'Mr' (and 'Prof.' its 'Prof', 'Dr.' its 'Dr'): only the case,
 * the spacing or an abbreviation's dot differ, so use the list's spelling. Any code list, not a list of titles.
 */
function matchListCase(body: Obj, codeLists: CodeLists): void {
  for (const [container, key, list] of ENUM_FIELDS) {
    const target = body[container] as Obj;
    const value = target[key];
    if (typeof value !== 'string' || codeLists[list].includes(value)) continue;
    const wanted = codeKey(value);
    if (wanted === '') continue;
    const match =
      codeLists[list].find((entry) => codeKey(entry) === wanted) ??
      (list === 'titles' && TITLE_WORDS[wanted] !== undefined
        ? codeLists[list].find((entry) => codeKey(entry) === TITLE_WORDS[wanted])
        : undefined);
    if (match) target[key] = match;
  }
}

const POSTCODE_KEYS = [
  ['homeAddress', 'postCode'],
  ['deliveryAddress', 'postCode'],
  ['clinicInformation', 'postcode'],
] as const;

/**
 * A UK postcode in another case or without its space (`ls14ap`) is the same postcode, and validation takes it so: it
 * is sent as Royal Mail writes it (`LS1 4AP`). Only where validation checks it as a UK one (country GBR, or none).
 */
function normaliseUkPostcodes(body: Obj): void {
  for (const [container, key] of POSTCODE_KEYS) {
    const target = body[container] as Obj;
    const value = target[key];
    if (typeof value !== 'string' || (target.countryCode !== 'GBR' && target.countryCode !== undefined)) continue;
    const normal = ukPostcodeNormalForm(value);
    if (normal !== undefined) target[key] = normal;
  }
}

/**
 * Titles written out in full, as NHS systems send PID-5.5 (Cerner Millennium: `PROFESSOR`), read as the environment's
 * abbreviation of the same title: the same word, so no warning. Only where the list has no such word of its own.
 */
const TITLE_WORDS: Record<string, string> = {
  professor: 'prof',
  doctor: 'dr',
  mister: 'mr',
  reverend: 'rev',
  revd: 'rev',
  'the reverend': 'rev',
};

/**
 * A sex code the profile did not map (HL7 table 0001 or a number: sex-codes.ts), as the environment's gender; the
 * field joins `reported` when no gender fits, so validation does not repeat the error in vaguer words.
 */
function sexCode(
  body: Obj,
  input: FinishInput,
  provenance: ProvenanceTable,
  reported: Set<string>,
): Problem | undefined {
  const customer = body.customer as Obj;
  const value = customer.gender;
  if (typeof value !== 'string') return undefined;
  const read = readSexCode(value, provenance.get('customer.gender'), input);
  if (!read) return undefined;
  if (read.value !== undefined) customer.gender = read.value;
  else reported.add('customer.gender');
  return read.problem;
}

/** An NHS consultant code: C and a 7-digit GMC number (NHS Data Dictionary, CONSULTANT CODE). */
const CONSULTANT_CODE = /^C(\d{7})$/i;

/**
 * The source with its order control. Not `{ ...source, orderControl }`: V8 builds a spread followed by another
 * property on a slow path, about 1 µs an order here (a fifth of finishing an HL7 order); a copy and a set are fast.
 */
function withOrderControl(source: FinishInput['source'], orderControl: OrderControl): FinishInput['source'] {
  const copy = Object.assign({}, source);
  copy.orderControl = orderControl;
  return copy;
}

/** The fields a cancel sends: its order's identity. */
const CANCEL_FIELDS: ReadonlySet<string> = new Set(['clinicInformation.clinicCode', 'prescription.clinicOrderId']);

/** Leaves out a cancel's errors about fields it does not send; those about its identity or the message stay. */
function dropUnsentFieldErrors(problems: Problem[]): void {
  let kept = 0;
  for (const found of problems) {
    if (found.severity === 'error' && found.field !== undefined && !CANCEL_FIELDS.has(found.field)) continue;
    problems[kept++] = found;
  }
  problems.length = kept;
}

/**
 * A registration number given as an NHS consultant code (`C1234567`, as an EPR's export or HL7's ORC-12.1 writes
 * the prescriber) is read as its GMC number, with a warning: the same doctor, only the NHS form of the number. The
 * HL7 map reads ORC-12 so itself (hl7.consultantCode); this covers a CSV column or a profile's constant.
 */
function consultantCode(body: Obj, input: FinishInput, provenance: ProvenanceTable): Problem | undefined {
  const path = 'prescribingDoctor.registrationNumber';
  const doctor = body.prescribingDoctor as Obj | undefined;
  const value = doctor?.registrationNumber;
  const match = typeof value === 'string' ? CONSULTANT_CODE.exec(value.trim()) : null;
  if (!doctor || !match) return undefined;
  doctor.registrationNumber = match[1];
  const source = provenance.get(path);
  return problem(
    'warning',
    input.file,
    locationOf(source, input.fallback),
    'registrationNumber.consultantCode',
    `${capitalise(describeSource(source) ?? 'the registration number')} ${quote(value)} is an NHS consultant code, the letter C and the GMC number, so the GMC number ${match[1]} was read.`,
    path,
  );
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

export function finishOrder(input: FinishInput): { order: ImportedOrder; provenance: ProvenanceTable } {
  const built = buildOrder(input.cells, input.profile, {
    file: input.file,
    today: input.today,
    fallback: input.fallback,
    decimalComma: input.decimalComma === true,
  });
  matchListCase(built.body, input.codeLists);
  normaliseUkPostcodes(built.body);
  const clinicCode = text((built.body.clinicInformation as Obj).clinicCode);
  let clinicOrderId = text((built.body.prescription as Obj).clinicOrderId);
  const problems: Problem[] = [...input.extraProblems, ...built.problems];
  const sexReported = new Set<string>();
  const sex = sexCode(built.body, input, built.provenance, sexReported);
  if (sex) problems.push(sex);
  const consultant = consultantCode(built.body, input, built.provenance);
  if (consultant) problems.push(consultant);
  const cancel = input.orderControl === 'CA';

  if (cancel) {
    // A cancel names an order sent earlier; only its identity matters, not a full body. What is wrong with the fields
    // it does not send (an item's dosage only in its timing, a date of birth) cannot block it: a clinic system's
    // cancel often repeats the order's segments as they were.
    dropUnsentFieldErrors(problems);
    if (clinicCode && clinicOrderId && input.isKnownOrder && input.groupCancel) {
      const resolved = resolveGroupCancel({
        clinicCode,
        clinicOrderId,
        ...input.groupCancel,
        isKnownOrder: input.isKnownOrder,
        file: input.file,
        fallback: input.fallback,
      });
      // One item's ORC-2 under its group's ORC-4: the cancel is of the group's order.
      if (resolved.clinicOrderId !== clinicOrderId) {
        clinicOrderId = resolved.clinicOrderId;
        (built.body.prescription as Obj).clinicOrderId = clinicOrderId;
        // The value is now the ORC's placer group number: the preview points at ORC-4.1, not the item's ORC-2.1.
        const from = built.provenance.get('prescription.clinicOrderId');
        if (from?.kind === 'hl7' && /^ORC-2(\.1)?$/.test(from.path)) {
          built.provenance.replace('prescription.clinicOrderId', { ...from, path: 'ORC-4.1' });
        }
      }
      if (resolved.problem) problems.push(resolved.problem);
    }
    for (const [value, field, what] of [
      [clinicCode, 'clinicInformation.clinicCode', 'clinic code'],
      [clinicOrderId, 'prescription.clinicOrderId', 'clinic order id'],
    ] as const) {
      if (!value && !input.reported.has(field)) {
        problems.push(
          problem('error', input.file, input.fallback, 'field.required', `A cancel needs the ${what}.`, field),
        );
      }
    }
    if (clinicCode && clinicOrderId && input.isKnownOrder && !input.isKnownOrder(clinicCode, clinicOrderId)) {
      problems.push(
        problem(
          'error',
          input.file,
          input.fallback,
          'cancel.unknownOrder',
          `The cancel is for order ${quote(clinicOrderId)} of clinic ${quote(clinicCode)}, which no earlier batch queued or sent.`,
          'prescription.clinicOrderId',
        ),
      );
    }
  } else if (!input.skipValidation) {
    const skip =
      (built.reported && input.reported.size > 0) || sexReported.size > 0
        ? new Set([...input.reported, ...(built.reported ?? []), ...sexReported])
        : (built.reported ?? input.reported);
    problems.push(
      ...validateOrder(built.body, {
        noUnreadableText: input.noUnreadableText === true,
        codeLists: input.codeLists,
        today: input.today,
        file: input.file,
        provenanceLookup: built.provenance,
        fallback: input.fallback,
        // A CSV item's cells came from its own row (a number origin): its missing fields are said there.
        itemFallbacks: input.cells.items.map((item) =>
          typeof item.origins === 'number' ? { row: item.origins } : undefined,
        ),
        skip,
      }),
    );
    if (clinicCode && clinicOrderId && input.isKnownOrder?.(clinicCode, clinicOrderId)) {
      problems.push(
        problem(
          'error',
          input.file,
          input.fallback,
          'order.alreadyKnown',
          `Order ${quote(clinicOrderId)} of clinic ${quote(clinicCode)} was already queued or sent from an earlier batch; the service would reject it as a duplicate.`,
          'prescription.clinicOrderId',
        ),
      );
    }
  }

  const order = importedOrder(
    {
      clinicCode,
      clinicOrderId,
      body: built.body,
      valid: !problems.some((p) => p.severity === 'error'),
      problems,
      source: input.orderControl ? withOrderControl(input.source, input.orderControl) : input.source,
    },
    built.provenance,
  );
  return { order, provenance: built.provenance };
}
