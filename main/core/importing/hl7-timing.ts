import type { Hl7Message, Hl7Segment } from '../model/hl7-adapter.js';

/**
 * How often an item is to be taken, where an order message says it outside the administration instructions: TQ1
 * (v2.5 on: text instruction TQ1-11, repeat pattern TQ1-3) after the item's ORC, the ORC's own quantity/timing
 * (ORC-7, v2.4 and before: text ORC-7.8, interval ORC-7.2) and RXE-1 (the same TQ type). Senders that fill these
 * and leave RXE-7/RXO-7 empty are common; the importer does not send the timing as the dosage (it is often only
 * the frequency, without the dose), but says where it is, so a person can write the instructions.
 */

export interface ItemTiming {
  /** Where it was read, as provenance writes paths: `TQ1-11`, `ORC-7.2`. */
  path: string;
  text: string;
}

/** A value that says something in words ("3 times daily", "TID^three times a day"), not a bare number or date. */
const WORDS = /[A-Za-z]{2}/;

/** The first timing in words of the item at `item` (its RXE or RXO), looking back to its ORC. */
export function itemTiming(message: Hl7Message, item: Hl7Segment): ItemTiming | undefined {
  let orcAt = item.position - 1;
  while (orcAt >= 0 && message.segments[orcAt]!.name !== 'ORC') orcAt -= 1;
  const group = orcAt < 0 ? [] : message.segments.slice(orcAt, item.position);
  const reads: Array<[string, () => string]> = [];
  for (const tq1 of group) {
    if (tq1.name !== 'TQ1') continue;
    reads.push(['TQ1-11', () => tq1.value(11)], ['TQ1-3.2', () => tq1.value(3, 2)], ['TQ1-3', () => tq1.value(3)]);
  }
  // The TQ type's text (component 8), then its interval (component 2: RI, whose first part is the repeat pattern).
  const quantityTiming = (segment: Hl7Segment, name: string, field: number) =>
    reads.push([`${name}.8`, () => segment.value(field, 8)], [`${name}.2`, () => segment.value(field, 2)]);
  if (item.name === 'RXE') quantityTiming(item, 'RXE-1', 1);
  if (group[0]) quantityTiming(group[0], 'ORC-7', 7);
  for (const [path, read] of reads) {
    const text = read();
    if (WORDS.test(text)) return { path, text };
  }
  return undefined;
}
