import { ORDER_FIELDS, type OrderField } from '../preview/order-fields.js';
import type { StringMap } from './value-maps.js';

const isDelivery = (column: string) => column.startsWith('delivery');

/**
 * The required fields a mapping leaves without a file column or a constant. As the importer reads a file, an order
 * with no delivery field at all (none mapped, no constant) goes to the home address, so the delivery fields are
 * missing only once one of them is given.
 */
export function unmappedRequired(columns: StringMap, constants: StringMap): OrderField[] {
  const given = (column: string) => Boolean(columns[column] || constants[column]);
  const deliveryGiven = ORDER_FIELDS.some((field) => isDelivery(field.column) && given(field.column));
  return ORDER_FIELDS.filter(
    (field) => field.required && !given(field.column) && (deliveryGiven || !isDelivery(field.column)),
  );
}
