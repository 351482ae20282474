/**
 * Why an order the service created is flagged as no longer known there (main/core/tracking/lost-at-service.ts has
 * the rule), or noted as listed under other ids (listed-differently.ts), in one wording for every place that says
 * it: the Orders screen, the CLI's `status`, the notification and the audit log. Identifiers only, never patient data.
 */

export interface NotFoundFacts {
  clinicOrderId: string;
  pharmacyOrderId: number | null;
  /** Lookups in a row that did not find it. */
  lookups: number;
  /** When the first of them was made (ISO). */
  since: string;
}

/** An ISO instant as `2025-03-03 09:00 UTC`: for the CLI and the log, read in any time zone. */
export function utcMinute(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The reason, lower-case and without a full stop (as a service's message is quoted: "…: <reason>"). `time` writes
 * `since`: the screens pass the admin's locale format.
 */
export function notFoundReason(facts: NotFoundFacts, time: (iso: string) => string = utcMinute): string {
  const lookups = facts.lookups === 1 ? '1 lookup' : `${facts.lookups} lookups`;
  return (
    `the service has not found order ${facts.clinicOrderId} (pharmacy id ${facts.pharmacyOrderId ?? 'none'}) on ` +
    `${lookups} since ${time(facts.since)}; it may have been removed at the service, or this environment points ` +
    'at another service'
  );
}

/** A record a lookup listed for an order that may be it but is not taken as it (main/core/tracking/listed-differently.ts). */
export interface ListedDifferentlyFacts {
  clinicOrderId: string;
  pharmacyOrderId: number | null;
  /** The record's ids, as the service gave them. */
  listed: { clinicOrderId: string; pharmacyOrderId: string | null };
}

/** Which of the order's ids the record gives otherwise: the clinic order id when it differs, else the pharmacy id. */
export function differingId(facts: ListedDifferentlyFacts): 'clinicOrderId' | 'pharmacyOrderId' {
  return facts.listed.clinicOrderId === facts.clinicOrderId ? 'pharmacyOrderId' : 'clinicOrderId';
}

/** What the service listed instead, worded as notFoundReason is (lower-case, no full stop), ids only. */
export function listedDifferentlyReason(facts: ListedDifferentlyFacts): string {
  const how =
    differingId(facts) === 'clinicOrderId'
      ? 'its clinic order id differs only in case or spaces'
      : 'its pharmacy id is not the one the create returned';
  return (
    `the service lists order ${facts.clinicOrderId} (pharmacy id ${facts.pharmacyOrderId ?? 'none'}) as clinic order ` +
    `id "${facts.listed.clinicOrderId}", pharmacy id ${facts.listed.pharmacyOrderId ?? 'none'}: ${how}, so the ` +
    "record is not taken as this order (it may be another) and the order's status is not updated from it"
  );
}
