import type { CodeLists } from '../../../shared/environment.js';
import type { CompiledProfile } from './compiled-profile.js';
import { buildOrder, type OrderCells } from './order-builder.js';
import { describeSource, locationOf, problem, quote, type Location } from './problems.js';
import { importedOrder, type OrderExtras, type ProvenanceTable } from '../model/provenance-table.js';
import type { ImportedOrder, OrderControl, Problem } from '../model/imported-order.js';
import { validateOrder } from './validate-order.js';

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

/** How a code is compared with the environment's list: case, surrounding and doubled spaces, trailing dots aside. */
export const codeKey = (value: string): string =>
  value.trim().replace(/\.+$/, '').replace(/\s+/g, ' ').trim().toLowerCase();

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
    const match = codeLists[list].find((entry) => codeKey(entry) === wanted);
    if (match) target[key] = match;
  }
}

/**
 * Sex given as a number: the NHS Data Dictionary's person gender codes and ISO 5218 (1 male, 2 female, 0 not known,
 * 9 not specified), as clinic systems export them in PID-8 or a CSV column. Each is the environment's value whose
 * name (as codeKey reads it) is the first of these it has; none, and the code stays for validation to refuse.
 */
const NUMERIC_SEX: Record<string, { names: readonly string[]; meaning?: string }> = {
  '1': { names: ['male', 'm'] },
  '2': { names: ['female', 'f'] },
  '0': { names: ['not known', 'unknown', 'u'] },
  '9': {
    names: ['not specified', 'unknown', 'not known', 'u'],
    meaning: "9 is 'not specified' or 'indeterminate' in NHS codes and 'not applicable' in ISO 5218",
  },
};

/**
 * A numeric sex code the profile did not map (its value maps were applied when the body was built), read as the
 * environment's value with a warning naming the assumption; undefined when the gender is not such a code.
 */
function numericGender(body: Obj, input: FinishInput, provenance: ProvenanceTable): Problem | undefined {
  const customer = body.customer as Obj;
  const value = customer.gender;
  if (typeof value !== 'string') return undefined;
  const code = NUMERIC_SEX[value.trim()];
  const genders = input.codeLists.genders;
  if (!code || genders.includes(value)) return undefined;
  let match: string | undefined;
  for (const name of code.names) {
    match = genders.find((entry) => codeKey(entry) === name);
    if (match) break;
  }
  if (!match) return undefined;
  customer.gender = match;
  const origin = provenance.get('customer.gender');
  const from = describeSource(origin);
  const why = code.meaning
    ? `${code.meaning}`
    : '1 male, 2 female, 0 not known, 9 not specified, as the NHS Data Dictionary and ISO 5218 number them';
  return problem(
    'warning',
    input.file,
    locationOf(origin, input.fallback),
    'gender.numericCode',
    `Gender ${quote(value)}${from ? ` (${from})` : ''} is a numeric sex code, read as ${quote(match)} (${why}); if the sender means another code, map it in the mapping profile.`,
    'customer.gender',
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
  const clinicCode = text((built.body.clinicInformation as Obj).clinicCode);
  const clinicOrderId = text((built.body.prescription as Obj).clinicOrderId);
  const problems: Problem[] = [...input.extraProblems, ...built.problems];
  const sex = numericGender(built.body, input, built.provenance);
  if (sex) problems.push(sex);
  const cancel = input.orderControl === 'CA';

  if (cancel) {
    // A cancel names an order sent earlier; only its identity matters, not a full body.
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
      built.reported && input.reported.size > 0
        ? new Set([...input.reported, ...built.reported])
        : (built.reported ?? input.reported);
    problems.push(
      ...validateOrder(built.body, {
        noUnreadableText: input.noUnreadableText === true,
        codeLists: input.codeLists,
        today: input.today,
        file: input.file,
        provenanceLookup: built.provenance,
        fallback: input.fallback,
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
      source: input.orderControl ? { ...input.source, orderControl: input.orderControl } : input.source,
    },
    built.provenance,
  );
  return { order, provenance: built.provenance };
}
