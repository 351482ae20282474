import type { Hl7Message } from '../model/hl7-adapter.js';

/**
 * ORM^O01 is HL7's general order message: the same type carries a lab test, an imaging study, a diet or a supply
 * requisition, told apart only by the order detail segment after the ORC (v2.3–2.5 ORM^O01: OBR, RQD, RQ1, RXO, ODS,
 * ODT; BPO in the blood product orders). One with no RXO or RXE item and such a segment is another department's
 * order sent to the pharmacy: nothing in it is a prescription, so it gets one problem saying so, never the dozen
 * "missing" pharmacy fields (prescriber in ORC-12, clinic in ORC-21/22…) such an order has no reason to fill.
 */

const OTHER_ORDER_DETAIL: ReadonlyArray<readonly [segment: string, kind: string]> = [
  ['OBR', 'a lab, imaging or other observation order (its OBR segment requests a test or study)'],
  ['RQD', 'a supply requisition (its RQD segment requests stock or equipment)'],
  ['RQ1', 'a supply requisition (its RQ1 segment requests stock or equipment)'],
  ['ODS', 'a dietary order (its ODS segment orders a diet or supplement)'],
  ['ODT', 'a diet tray order (its ODT segment)'],
  ['BPO', 'a blood product order (its BPO segment)'],
];

/** The pharmacy item segments: a message with one of them is a pharmacy order, whatever else it holds. */
const ITEM_SEGMENTS: ReadonlySet<string> = new Set(['RXE', 'RXO']);

/** What kind of other order a message with no pharmacy item is, by its order detail segment; else undefined. */
export function otherOrderKind(message: Hl7Message): string | undefined {
  if (message.segments.some((segment) => ITEM_SEGMENTS.has(segment.name))) return undefined;
  return OTHER_ORDER_DETAIL.find(([segment]) => message.first(segment))?.[1];
}

/** The one problem's text for such a message (code `hl7.noItems`), or undefined when it is no other order. */
export function otherOrderText(message: Hl7Message, index: number): string | undefined {
  const kind = otherOrderKind(message);
  if (!kind) return undefined;
  return `Message ${index} (${message.messageType}) is ${kind}, not a pharmacy order: it has no RXO or RXE item, so it prescribes nothing (it holds ${segmentsHeld(message)}). Ask the sender not to route these orders to the pharmacy; a prescription comes as RDE^O11 with RXE, or OMP^O09 or ORM^O01 with RXO.`;
}

/** The names of the segments a message holds, each once, in order of first appearance: `MSH, PID, ORC`. */
export function segmentsHeld(message: Hl7Message): string {
  return [...new Set(message.segments.map((segment) => segment.name))].join(', ');
}
