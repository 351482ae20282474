import { Hl7ParseError, parseHl7Message, type Hl7Segment } from '../model/hl7-adapter.js';

/**
 * The placer numbers a message's ORCs carry. A prescription of several items may give each item a placer order
 * number of its own (ORC-2) under one placer group number (ORC-4, HL7's grouping of orders placed together): that
 * group is then the order (hl7-field-map.ts), and a cancel naming its items cancels it (group-cancel.ts).
 */
export interface PlacerNumbers {
  /** The ORCs' ORC-2.1 values (placer order numbers), each once, in message order; empty ones left out. */
  items: string[];
  /** The ORC-4.1 (placer group number) every ORC has; '' when one has none or two differ. */
  group: string;
}

export function placerNumbers(orcs: readonly Hl7Segment[]): PlacerNumbers {
  // Nearly every message has one ORC: read without the sets and arrays the general case makes.
  if (orcs.length === 1) {
    const item = orcs[0]!.value(2, 1);
    return { items: item === '' ? [] : [item], group: orcs[0]!.value(4, 1) };
  }
  const items = [...new Set(orcs.map((segment) => segment.value(2, 1)).filter(Boolean))];
  const groups = new Set(orcs.map((segment) => segment.value(4, 1)));
  return { items, group: groups.size === 1 ? [...groups][0]! : '' };
}

/** Several items, each its own ORC-2, under one ORC-4: the message is one order numbered by the group. */
export function isPlacerGroup(numbers: PlacerNumbers): boolean {
  return numbers.items.length > 1 && numbers.group !== '';
}

/**
 * The item placer numbers (ORC-2) of the order a stored message made, when that message is a placer group numbered
 * `clinicOrderId`; undefined for any other message (one ORC-2, a profile that numbers orders another way) or none.
 */
export function groupItemsOfMessage(hl7: string | undefined, clinicOrderId: string): string[] | undefined {
  const numbers = placerNumbersOfMessage(hl7);
  return numbers && isPlacerGroup(numbers) && numbers.group === clinicOrderId ? numbers.items : undefined;
}

/** The placer numbers of a stored message (segments joined by `\r`); undefined when there is none to read. */
export function placerNumbersOfMessage(hl7: string | undefined): PlacerNumbers | undefined {
  if (!hl7) return undefined;
  try {
    return placerNumbers(parseHl7Message(hl7.split('\r')).all('ORC'));
  } catch (error) {
    if (error instanceof Hl7ParseError) return undefined;
    throw error;
  }
}
