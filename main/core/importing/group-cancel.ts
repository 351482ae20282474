import type { Problem } from '../model/imported-order.js';
import { listSome } from './hl7-field-map.js';
import type { PlacerNumbers } from './hl7-placer-group.js';
import { problem, quote, type Location } from './problems.js';

/**
 * A cancel (ORC-1 CA) of an order sent as a placer group: several items, each its own ORC-2, under one ORC-4, made
 * one order numbered by the ORC-4 (hl7-field-map.ts). Senders cancel it as they sent it, an ORC per item, or name
 * one item's ORC-2 with the group's ORC-4. The service cancels whole orders only (order-service.md, cancel), so a
 * cancel that names every item (or the group alone) cancels the order, and one that names only some of them is
 * refused saying so: cancelling the whole order on it would stop items the prescriber still wants dispensed.
 */

/** The error of a cancel that names only some items of a grouped order (or items it does not have). */
export const PARTIAL_CANCEL = 'cancel.partialOrder';

/**
 * The item placer numbers (ORC-2) of the grouped order known under this identity: accepted, earlier in the same file
 * or waiting from the same sender. Undefined when no such order is known or it is not a placer group.
 */
export type GroupItemsOf = (clinicCode: string, clinicOrderId: string) => readonly string[] | undefined;

export interface GroupCancelInput {
  clinicCode: string;
  /** The order the cancel names as read: its ORC-4 when it names a group, else its ORC-2. */
  clinicOrderId: string;
  placers: PlacerNumbers;
  isKnownOrder: (clinicCode: string, clinicOrderId: string) => boolean;
  groupItemsOf: GroupItemsOf;
  file: string;
  fallback: Location;
}

/** The order the cancel acts on (a grouped order's ORC-4 for one of its items) and its problem if it cannot. */
export function resolveGroupCancel(input: GroupCancelInput): { clinicOrderId: string; problem?: Problem } {
  const { clinicCode, clinicOrderId, placers } = input;
  if (placers.group === '') return { clinicOrderId };
  // One ORC-2 that is an order of its own is that order, whatever its ORC-4 says.
  if (clinicOrderId !== placers.group && input.isKnownOrder(clinicCode, clinicOrderId)) return { clinicOrderId };
  const items = input.groupItemsOf(clinicCode, placers.group);
  if (!items) return { clinicOrderId };
  const named = placers.items.filter((item) => item !== placers.group);
  const missing = items.filter((item) => !named.includes(item));
  const strangers = named.filter((item) => !items.includes(item));
  if (named.length === 0 || (missing.length === 0 && strangers.length === 0)) {
    return { clinicOrderId: placers.group };
  }
  const list = (values: readonly string[]) => listSome(values.map(quote));
  const others =
    strangers.length === 0
      ? ''
      : `; ${list(strangers)} ${strangers.length === 1 ? 'is not one of them' : 'are not among them'}`;
  const text =
    `The cancel (ORC-1 CA) names ${named.length === 1 ? 'item' : 'items'} ${list(named)} (ORC-2) of order ` +
    `${quote(placers.group)} of clinic ${quote(clinicCode)} (ORC-4, placer group number), which has ` +
    `${items.length} items: ${list(items)}${others}. The service cancels whole orders only, so nothing was cancelled. ` +
    'A cancel naming every item, or the placer group (ORC-4) alone, cancels the order; to stop only some items, ' +
    'cancel the whole order and send the items still wanted as a new one.';
  return {
    clinicOrderId: placers.group,
    problem: problem('error', input.file, input.fallback, PARTIAL_CANCEL, text, 'prescription.clinicOrderId'),
  };
}
