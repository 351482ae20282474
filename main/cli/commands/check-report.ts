import type {
  CourierState,
  EnrichmentRun,
  EnrichmentWarning,
  ItemEnrichment,
  NotCheckedReason,
  OrderEnrichment,
} from '../../../shared/enrichment-views.js';

/**
 * What `batch check` reports of the orders it walked after a check: each service warning with the order it is
 * about (position, clinic, clinic order id), the item and its dm+d code, and how many items and couriers were not
 * checked, by reason. Built only from the enrichment views and the order's identifiers: never a patient field.
 */

/** The kinds a person reads; one per service warning code. */
export const WARNING_KINDS = {
  'service.outOfStock': 'out of stock',
  'service.unknownCode': 'unknown code',
  'service.unknownCourier': 'courier not listed',
  'service.productMismatch': 'product id mismatch',
} as const satisfies Record<EnrichmentWarning['code'], string>;

export type WarningKind = (typeof WARNING_KINDS)[EnrichmentWarning['code']];

/** What identifies an order in the report: where it is in the file and its clinic's ids. */
export interface OrderRef {
  stagedOrderId: number;
  position: number;
  clinicCode: string | null;
  clinicOrderId: string | null;
}

/** One warning as `batch check --json` prints it. */
export interface ReportedWarning extends OrderRef {
  kind: WarningKind;
  code: EnrichmentWarning['code'];
  /** 0-based index in `prescribedItems`; null for the order as a whole (its courier). */
  itemIndex: number | null;
  /** The item's dm+d code as digits (a string: 18 digits do not fit a JSON reader's double); null for a courier. */
  dmdCode: string | null;
  field: string;
  text: string;
  checkedAt: string;
}

/**
 * Reasons reported as "not checked". `no-product` is left out: an unknown code is already a warning, and its
 * stock and price cannot exist. The first five mean the check could not ask; the last two are for the admin to fix.
 */
export const REPORTED_REASONS = [
  'offline',
  'signed-out',
  'service-error',
  'cancelled',
  'never',
  'invalid-code',
  'no-pack-count',
] as const satisfies readonly NotCheckedReason[];
export type ReportedReason = (typeof REPORTED_REASONS)[number];

/** The reasons that make a check unfinished (the run is `partial`): the ones a person has to act on. */
export const UNFINISHED_REASONS: ReadonlySet<ReportedReason> = new Set([
  'offline',
  'signed-out',
  'service-error',
  'cancelled',
  'never',
]);

export interface NotCheckedTally {
  /** Items with at least one of product, stock or price not known for this reason (each item counted once). */
  items: number;
  /** Orders whose courier code could not be checked for this reason. */
  couriers: number;
  /**
   * Of those, how many still show an earlier answer (with its own time): the last attempt failed, not the first.
   * The core's count (`counts.earlierAnswers` of the run), put on the reason its re-check failed for.
   */
  earlierAnswers: number;
}

type Why = { reason: ReportedReason; earlier: boolean };

const unfinished = (reason: NotCheckedReason): reason is ReportedReason =>
  UNFINISHED_REASONS.has(reason as ReportedReason);

/**
 * Why an item is not fully known: first a reason that kept the check from asking, then a failed re-check under an
 * earlier answer (a failure is stored beside the last good answer, never over it), then the file's own gaps.
 */
function itemWhy(item: ItemEnrichment): Why | undefined {
  const states = [item.product, item.stock, item.price];
  const reasons = states.flatMap((state) => (state.state === 'not-checked' ? [state.reason] : []));
  const missing = reasons.find(unfinished);
  if (missing) return { reason: missing, earlier: false };
  for (const state of states) {
    if (state.state !== 'not-checked' && state.recheckFailed)
      return { reason: state.recheckFailed.reason, earlier: true };
  }
  if (reasons.includes('invalid-code')) return { reason: 'invalid-code', earlier: false };
  return reasons.includes('no-pack-count') ? { reason: 'no-pack-count', earlier: false } : undefined;
}

function courierWhy(courier: CourierState): Why | undefined {
  // An order without a courier code is the offline checks' business (it is already invalid).
  if (courier.state === 'not-checked')
    return unfinished(courier.reason) ? { reason: courier.reason, earlier: false } : undefined;
  return courier.recheckFailed ? { reason: courier.recheckFailed.reason, earlier: true } : undefined;
}

export class CheckReport {
  readonly warningsByKind = new Map<WarningKind, number>();
  readonly notChecked = new Map<ReportedReason, NotCheckedTally>();
  warnings = 0;
  /** Reasons under which an item or courier showing an earlier answer was tallied. */
  readonly #earlierReasons = new Set<ReportedReason>();

  /** Tallies one order's view and returns its warnings, each with the order, item and dm+d code it is about. */
  add(order: OrderEnrichment, ref: OrderRef): ReportedWarning[] {
    for (const item of order.items) {
      const why = itemWhy(item);
      if (why) this.#count(why).items += 1;
    }
    const why = courierWhy(order.courier);
    if (why) this.#count(why).couriers += 1;
    return order.warnings.map((warning) => {
      const kind = WARNING_KINDS[warning.code];
      this.warnings += 1;
      this.warningsByKind.set(kind, (this.warningsByKind.get(kind) ?? 0) + 1);
      const item = warning.itemIndex === null ? undefined : order.items.find((i) => i.index === warning.itemIndex);
      return {
        ...ref,
        kind,
        code: warning.code,
        itemIndex: warning.itemIndex,
        dmdCode: item?.dmdCode ?? null,
        field: warning.field,
        text: warning.text,
        checkedAt: warning.checkedAt,
      };
    });
  }

  /**
   * Takes the core's count of earlier answers kept after a failed re-check (the run's summary) onto the reason
   * they were tallied under: the run's own reason when it is one of them, else the first such reason.
   */
  takeEarlierAnswers(run: Pick<EnrichmentRun, 'counts' | 'notChecked'>): void {
    for (const tally of this.notChecked.values()) tally.earlierAnswers = 0;
    if (run.counts.earlierAnswers === 0 || this.#earlierReasons.size === 0) return;
    const main = run.notChecked !== null && this.#earlierReasons.has(run.notChecked) ? run.notChecked : undefined;
    const reason = main ?? REPORTED_REASONS.find((candidate) => this.#earlierReasons.has(candidate));
    const tally = reason && this.notChecked.get(reason);
    if (tally) tally.earlierAnswers = run.counts.earlierAnswers;
  }

  /** Whether some of the batch could not be checked (offline, signed out, service errors, not asked). */
  get unfinished(): boolean {
    return [...this.notChecked.keys()].some((reason) => UNFINISHED_REASONS.has(reason));
  }

  /** The tallies as a plain object in a stable order, for JSON. */
  notCheckedObject(): Partial<Record<ReportedReason, NotCheckedTally>> {
    const out: Partial<Record<ReportedReason, NotCheckedTally>> = {};
    for (const reason of REPORTED_REASONS) {
      const tally = this.notChecked.get(reason);
      if (tally) out[reason] = tally;
    }
    return out;
  }

  #count({ reason, earlier }: Why): NotCheckedTally {
    let tally = this.notChecked.get(reason);
    if (!tally) {
      tally = { items: 0, couriers: 0, earlierAnswers: 0 };
      this.notChecked.set(reason, tally);
    }
    if (earlier) this.#earlierReasons.add(reason);
    return tally;
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line per warning: `#2 CLINIC-A RX-0042 item 1 dm+d 177803111000001105: Out of stock at the service: …`. */
export function warningLine(warning: ReportedWarning): string {
  const order = `#${warning.position} ${warning.clinicCode ?? '?'} ${warning.clinicOrderId ?? '?'}`;
  const about =
    warning.itemIndex === null
      ? ''
      : ` item ${warning.itemIndex + 1}${warning.dmdCode !== null ? ` dm+d ${warning.dmdCode}` : ''}`;
  return `${order}${about}: ${warning.text}`;
}

/** `Warnings: 2 out of stock, 1 unknown code.` or `No service warnings.` */
export function warningsLine(report: CheckReport): string {
  if (report.warnings === 0) return 'No service warnings.';
  const kinds = Object.values(WARNING_KINDS).flatMap((kind) => {
    const n = report.warningsByKind.get(kind);
    return n ? [`${n} ${kind}`] : [];
  });
  return `${plural(report.warnings, 'warning')}: ${kinds.join(', ')}.`;
}

const WHY: Record<ReportedReason, (environmentId: string, batchId: number) => string> = {
  offline: (_env, batchId) => `the service could not be reached; run rx-batch batch check ${batchId} again when it can`,
  'signed-out': (env) => `stock, prices and couriers need a sign-in: rx-batch login ${env}`,
  'service-error': () => 'the service answered with errors (see rx-batch batch show --json for its messages)',
  cancelled: (_env, batchId) =>
    `the check was cancelled before these were answered; run rx-batch batch check ${batchId} again to finish it`,
  never: () => 'not asked yet (edited since the last check, or never checked)',
  'invalid-code': () => 'the dm+d code is missing or not valid; fix it first (rx-batch batch show)',
  'no-pack-count': () => 'the item gives no number of packs and the product no single pack size, so it is not priced',
};

const LABEL: Record<ReportedReason, string> = {
  offline: 'offline',
  'signed-out': 'signed out',
  'service-error': 'service error',
  cancelled: 'cancelled',
  never: 'not asked',
  'invalid-code': 'invalid dm+d code',
  'no-pack-count': 'no pack count',
};

/**
 * `Not checked: offline (3 items, 1 courier; 2 show an earlier answer): the service could not be reached; …`,
 * one line per reason.
 */
export function notCheckedLines(report: CheckReport, environmentId: string, batchId: number): string[] {
  return REPORTED_REASONS.flatMap((reason) => {
    const tally = report.notChecked.get(reason);
    if (!tally) return [];
    const what = [
      tally.items ? plural(tally.items, 'item') : '',
      tally.couriers ? plural(tally.couriers, "order's courier", "orders' couriers") : '',
    ].filter(Boolean);
    const earlier = tally.earlierAnswers
      ? `; ${tally.earlierAnswers} ${tally.earlierAnswers === 1 ? 'shows an earlier answer' : 'show earlier answers'}`
      : '';
    return [`Not checked: ${LABEL[reason]} (${what.join(', ')}${earlier}): ${WHY[reason](environmentId, batchId)}.`];
  });
}
