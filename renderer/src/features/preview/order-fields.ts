/**
 * The order fields as the review screens show them: template column, body path (`*` for the item index), label,
 * and whether the preview grid shows it as a column. The core's field catalogue is the authority on how a value
 * is read; this list only names and places the fields (renderer code cannot import main/), and the core refuses
 * any path it does not know, so a drift shows up as a refused edit, not as a silently wrong one.
 */

export interface OrderField {
  column: string;
  path: string;
  label: string;
  level: 'order' | 'item';
  required: boolean;
  /** Shown as a grid column (the rest are in the details panel). */
  inGrid: boolean;
  /** Grid column width in px. */
  width: number;
}

const field = (
  column: string,
  path: string,
  label: string,
  required: boolean,
  inGrid: boolean,
  width = 130,
): OrderField => ({ column, path, label, required, inGrid, width, level: path.includes('*') ? 'item' : 'order' });

export const ORDER_FIELDS: readonly OrderField[] = [
  field('clinicCode', 'clinicInformation.clinicCode', 'Clinic code', true, true, 110),
  field('clinicOrderId', 'prescription.clinicOrderId', 'Clinic order id', true, true, 120),
  field('title', 'customer.title', 'Title', true, true, 60),
  field('firstName', 'customer.firstName', 'First name', true, true, 110),
  field('surname', 'customer.surname', 'Surname', true, true, 120),
  field('dateOfBirth', 'customer.dateOfBirth', 'Date of birth', true, true, 110),
  field('gender', 'customer.gender', 'Gender', true, true, 80),
  field('telephone', 'customer.telephone', 'Telephone', false, true, 120),
  field('email', 'customer.email', 'Email', false, true, 170),
  field('clinicAccountNumber', 'customer.clinicAccountNumber', 'Clinic account number', false, false),
  field('homeAddress1', 'homeAddress.address1', 'Home address 1', true, true, 150),
  field('homeAddress2', 'homeAddress.address2', 'Home address 2', false, false),
  field('homeCity', 'homeAddress.city', 'Home city', true, true, 110),
  field('homeCounty', 'homeAddress.county', 'Home county', false, false),
  field('homePostCode', 'homeAddress.postCode', 'Home postcode', true, true, 110),
  field('homeCountryCode', 'homeAddress.countryCode', 'Home country', true, true, 90),
  field('deliveryAddress1', 'deliveryAddress.address1', 'Delivery address 1', true, true, 150),
  field('deliveryAddress2', 'deliveryAddress.address2', 'Delivery address 2', false, false),
  field('deliveryCity', 'deliveryAddress.city', 'Delivery city', true, true, 110),
  field('deliveryCounty', 'deliveryAddress.county', 'Delivery county', false, false),
  field('deliveryPostCode', 'deliveryAddress.postCode', 'Delivery postcode', true, true, 120),
  field('deliveryCountryCode', 'deliveryAddress.countryCode', 'Delivery country', true, false),
  field('paymentType', 'prescription.paymentType', 'Payment type', true, true, 110),
  field('courierCode', 'prescription.courierCode', 'Courier', true, true, 90),
  field('currencyCode', 'prescription.currencyCode', 'Currency', true, false),
  field('clinicOrderValue', 'prescription.clinicOrderValue', 'Order value', false, false),
  field('repeatsAllowed', 'prescription.repeatsAllowed', 'Repeats', false, true, 80),
  field('prescriberRegistrationNumber', 'prescribingDoctor.registrationNumber', 'Prescriber number', true, true, 130),
  field('prescriberName', 'prescribingDoctor.prescriberName', 'Prescriber', true, true, 140),
  field('clinicName', 'clinicInformation.name', 'Clinic name', true, true, 140),
  field('clinicAddress1', 'clinicInformation.address1', 'Clinic address 1', true, false),
  field('clinicAddress2', 'clinicInformation.address2', 'Clinic address 2', false, false),
  field('clinicAddress3', 'clinicInformation.address3', 'Clinic address 3', false, false),
  field('clinicAddress4', 'clinicInformation.address4', 'Clinic address 4', false, false),
  field('clinicPostcode', 'clinicInformation.postcode', 'Clinic postcode', true, true, 110),
  field('clinicCountryCode', 'clinicInformation.countryCode', 'Clinic country', true, false),
  field('clinicContactNumber', 'clinicInformation.contactNumber', 'Clinic phone', false, false),
  field('clinicContactEmail', 'clinicInformation.contactEmail', 'Clinic email', false, false),
  field('clinicPrescriberFeeTypeId', 'clinicInformation.prescriberFeeTypeId', 'Prescriber fee type', false, false),
  field('clinicPrescriberFee', 'clinicInformation.prescriberFee', 'Prescriber fee', false, false),
  field('affiliateId', 'affiliateId', 'Affiliate id', false, false),
  field('dmdCode', 'prescribedItems.*.dmdCode', 'dm+d code', true, true, 170),
  field('productId', 'prescribedItems.*.productId', 'Product id', false, false),
  field('medication', 'prescribedItems.*.medication', 'Medication', true, true, 200),
  field('dosageInstructions', 'prescribedItems.*.dosageInstructions', 'Dosage', true, true, 200),
  field('quantity', 'prescribedItems.*.quantity', 'Quantity', true, true, 80),
  field('pack', 'prescribedItems.*.pack', 'Packs', false, true, 70),
];

export const GRID_FIELDS: readonly OrderField[] = ORDER_FIELDS.filter((f) => f.inGrid);

/** The concrete body path of a field for one item (`prescribedItems.2.dmdCode`), or the order path itself. */
export function concretePath(field: OrderField, itemIndex: number): string {
  return field.level === 'item' ? field.path.replace('*', String(itemIndex)) : field.path;
}

/** The field a concrete path names (`prescribedItems.2.dmdCode` → dmdCode), if any. */
export function fieldOfPath(path: string): OrderField | undefined {
  const general = path.replace(/^prescribedItems\.\d+\./, 'prescribedItems.*.');
  return ORDER_FIELDS.find((f) => f.path === general);
}

/** A value at a dotted path of an order body, or undefined. */
export function valueAt(body: unknown, path: string): unknown {
  let current: unknown = body;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A body value as the grid shows it: text exactly (dm+d codes are digit strings already), blank for none. */
export function displayValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** How many item lines an order takes in the grid (at least one, so an order without items still shows). */
export function itemCount(body: unknown): number {
  const items = valueAt(body, 'prescribedItems');
  return Array.isArray(items) && items.length > 0 ? items.length : 1;
}
