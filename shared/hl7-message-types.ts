import { formatCount, plural } from './count-words.js';

/**
 * The HL7 v2 message types that carry pharmacy orders (MSH-9.1^MSH-9.2), which the importer reads; every other
 * type is refused (main/core/importing/hl7-message-types.ts says why, type by type). Shared: the import screen
 * tells a file of none of them from one with orders.
 */
export const ORDER_MESSAGE_TYPES = ['RDE^O11', 'RDE^O01', 'OMP^O09', 'ORM^O01'] as const;

/** Whether a message type as the import summary lists it (`RDE^O11`, `ADT^A01`, `(none)`) carries orders. */
export function isOrderMessageType(messageType: string): boolean {
  return (ORDER_MESSAGE_TYPES as readonly string[]).includes(messageType);
}

/** The order types in words, for a sentence telling a file of no orders what would be one. */
export const ORDER_MESSAGE_TYPES_IN_WORDS = `${ORDER_MESSAGE_TYPES.slice(0, -1).join(', ')} or ${ORDER_MESSAGE_TYPES.at(-1)!} with an RXO item`;

/** "3 invalid (2 of them no order at all)": a batch's invalid entries, the same in the CLI and the preview. */
export function invalidInWords(invalid: number, notOrders: number, invalidWord = 'invalid'): string {
  const noOrder = notOrders > 0 ? ` (${formatCount(notOrders)} of them no order at all)` : '';
  return `${formatCount(invalid)} ${invalidWord}${noOrder}`;
}

/** Why some entries of a batch stay invalid whatever is fixed: a message type that carries no order. */
export function notOrdersSentence(notOrders: number): string {
  return (
    `${plural(notOrders, 'message')} cannot become ${notOrders === 1 ? 'an order' : 'orders'}, and no fix in Rx ` +
    `Batch changes that: orders come as ${ORDER_MESSAGE_TYPES_IN_WORDS}.`
  );
}
