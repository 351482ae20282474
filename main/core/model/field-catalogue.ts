/**
 * Every field the importer can fill, once: its template column, its create-with-clinic v1 body path, how its text
 * is read, and the header synonyms other clinic systems use. The template, the mapping suggestions, the HL7 map,
 * the CSV writer and the README table all come from this list, so they cannot drift apart.
 */

/**
 * How a cell's text becomes a body value. `text` stays text exactly (leading zeros, long digit strings); `upper`
 * is text upper-cased (country and currency codes); `int`/`number` become JSON numbers; `date` becomes
 * `YYYY-MM-DD` using the profile's date format; `dmd` stays a digit string (see shared/wire-json.ts).
 */
export type FieldKind = 'text' | 'upper' | 'int' | 'number' | 'date' | 'dmd';

export interface FieldSpec {
  /** Template column name; also the key of a mapping profile's `columns`, `constants` and `valueMaps`. */
  column: string;
  /** Dotted body path; item fields use `*` for the item index. */
  path: string;
  level: 'order' | 'item';
  kind: FieldKind;
  /** Required by the create-with-clinic schema (delivery fields default to the home address when all blank). */
  required: boolean;
  label: string;
  example: string;
  /** Header texts other systems use for this field (matched after normalising, see suggest-mapping.ts). */
  synonyms: readonly string[];
}

const f = (
  column: string,
  path: string,
  kind: FieldKind,
  required: boolean,
  label: string,
  example: string,
  synonyms: readonly string[] = [],
): FieldSpec => ({
  column,
  path,
  level: path.includes('*') ? 'item' : 'order',
  kind,
  required,
  label,
  example,
  synonyms,
});

export const FIELDS: readonly FieldSpec[] = [
  f('clinicCode', 'clinicInformation.clinicCode', 'text', true, 'clinic code', 'CLINIC-A', [
    'Clinic ID',
    'Practice Code',
    'Site Code',
    'ODS Code',
  ]),
  f('clinicOrderId', 'prescription.clinicOrderId', 'text', true, 'clinic order id', 'ORD-1001', [
    'Order ID',
    'Order Number',
    'Order No',
    'Order Ref',
    'Order Reference',
    'Prescription ID',
    'Prescription Number',
  ]),
  f('title', 'customer.title', 'text', true, 'title', 'Mrs', ['Patient Title', 'Salutation', 'Prefix', 'Name Prefix']),
  f('firstName', 'customer.firstName', 'text', true, 'first name', 'Alex', [
    'Forename',
    'Given Name',
    'Patient First Name',
    'Patient Forename',
    'Christian Name',
    'First',
    'First Names',
    'Forenames',
    'Given',
    'Given Names',
    'fname',
  ]),
  f('surname', 'customer.surname', 'text', true, 'surname', 'Example', [
    'Last Name',
    'Family Name',
    'Patient Surname',
    'Patient Last Name',
    'Last',
    'Family',
    'lname',
  ]),
  f('dateOfBirth', 'customer.dateOfBirth', 'date', true, 'date of birth', '1980-01-15', [
    'DOB',
    'Birth Date',
    'Date Of Birth',
    'Patient DOB',
    'D.O.B.',
  ]),
  f('gender', 'customer.gender', 'text', true, 'gender', 'Female', ['Sex', 'Patient Sex', 'Patient Gender']),
  f('telephone', 'customer.telephone', 'text', false, 'telephone', '07700900123', [
    'Phone',
    'Phone Number',
    'Telephone Number',
    'Tel',
    'Mobile',
    'Mobile Number',
    'Patient Phone',
  ]),
  f('email', 'customer.email', 'text', false, 'email', 'alex@example.test', [
    'E-mail',
    'Email Address',
    'Patient Email',
  ]),
  f('clinicAccountNumber', 'customer.clinicAccountNumber', 'int', false, 'clinic account number', '4521', [
    'Account Number',
    'Patient Number',
  ]),
  f('homeAddress1', 'homeAddress.address1', 'text', true, 'home address line 1', '1 High Street', [
    'Address',
    'Address 1',
    'Address Line 1',
    'Street',
    'Patient Address',
  ]),
  f('homeAddress2', 'homeAddress.address2', 'text', false, 'home address line 2', 'Flat 2', [
    'Address 2',
    'Address Line 2',
  ]),
  f('homeCity', 'homeAddress.city', 'text', true, 'home town or city', 'Leeds', ['City', 'Town', 'Town/City']),
  f('homeCounty', 'homeAddress.county', 'text', false, 'home county', 'West Yorkshire', ['County']),
  f('homePostCode', 'homeAddress.postCode', 'text', true, 'home postcode', 'LS1 1AA', [
    'Post Code',
    'Postcode',
    'Patient Postcode',
    'Zip',
    'Zip Code',
    'Postal Code',
  ]),
  f('homeCountryCode', 'homeAddress.countryCode', 'upper', true, 'home country code', 'GBR', [
    'Country',
    'Country Code',
  ]),
  f('deliveryAddress1', 'deliveryAddress.address1', 'text', true, 'delivery address line 1', '1 High Street', [
    'Delivery Address',
    'Delivery Address Line 1',
    'Shipping Address',
  ]),
  f('deliveryAddress2', 'deliveryAddress.address2', 'text', false, 'delivery address line 2', 'Flat 2', [
    'Delivery Address Line 2',
  ]),
  f('deliveryCity', 'deliveryAddress.city', 'text', true, 'delivery town or city', 'Leeds', ['Delivery Town']),
  f('deliveryCounty', 'deliveryAddress.county', 'text', false, 'delivery county', 'West Yorkshire'),
  f('deliveryPostCode', 'deliveryAddress.postCode', 'text', true, 'delivery postcode', 'LS1 1AA', [
    'Delivery Post Code',
    'Shipping Postcode',
  ]),
  f('deliveryCountryCode', 'deliveryAddress.countryCode', 'upper', true, 'delivery country code', 'GBR', [
    'Delivery Country',
  ]),
  f('paymentType', 'prescription.paymentType', 'text', true, 'payment type', 'Account', ['Payment', 'Payment Method']),
  f('courierCode', 'prescription.courierCode', 'text', true, 'courier code', 'RMT24', [
    'Courier',
    'Delivery Method',
    'Delivery Service',
    'Shipping Method',
  ]),
  f('currencyCode', 'prescription.currencyCode', 'upper', true, 'currency code', 'GBP', ['Currency']),
  f('clinicOrderValue', 'prescription.clinicOrderValue', 'number', false, 'order value', '24.50', [
    'Order Value',
    'Order Total',
  ]),
  f('repeatsAllowed', 'prescription.repeatsAllowed', 'int', false, 'repeats allowed', '0', [
    'Repeats',
    'Refills',
    'Number Of Repeats',
  ]),
  f(
    'prescriberRegistrationNumber',
    'prescribingDoctor.registrationNumber',
    'text',
    true,
    'prescriber registration number',
    '7123456',
    ['GMC', 'GMC Number', 'GMC No', 'GPhC Number', 'NMC PIN', 'Registration Number', 'Prescriber GMC'],
  ),
  f('prescriberName', 'prescribingDoctor.prescriberName', 'text', true, 'prescriber name', 'Dr Jane Smith', [
    'Prescriber',
    'Doctor',
    'Prescribing Doctor',
    'Clinician',
  ]),
  f('clinicName', 'clinicInformation.name', 'text', true, 'clinic name', 'Example Clinic', ['Clinic', 'Practice']),
  f('clinicAddress1', 'clinicInformation.address1', 'text', true, 'clinic address line 1', '10 Market Street', [
    'Clinic Address',
  ]),
  f('clinicAddress2', 'clinicInformation.address2', 'text', false, 'clinic address line 2', 'Suite 4'),
  f('clinicAddress3', 'clinicInformation.address3', 'text', false, 'clinic address line 3', 'York'),
  f('clinicAddress4', 'clinicInformation.address4', 'text', false, 'clinic address line 4', 'North Yorkshire'),
  f('clinicPostcode', 'clinicInformation.postcode', 'text', true, 'clinic postcode', 'YO1 7HH', ['Clinic Post Code']),
  f('clinicCountryCode', 'clinicInformation.countryCode', 'upper', true, 'clinic country code', 'GBR', [
    'Clinic Country',
  ]),
  f('clinicContactNumber', 'clinicInformation.contactNumber', 'text', false, 'clinic phone', '01904 000000', [
    'Clinic Phone',
    'Clinic Telephone',
  ]),
  f('clinicContactEmail', 'clinicInformation.contactEmail', 'text', false, 'clinic email', 'clinic@example.test'),
  f('clinicPrescriberFeeTypeId', 'clinicInformation.prescriberFeeTypeId', 'int', false, 'prescriber fee type', ''),
  f('clinicPrescriberFee', 'clinicInformation.prescriberFee', 'number', false, 'prescriber fee', ''),
  f('affiliateId', 'affiliateId', 'text', false, 'affiliate id', ''),
  // The example is in the sandbox's catalogue (Paracetamol 500mg tablets, packs of 32), so the example order is found.
  f('dmdCode', 'prescribedItems.*.dmdCode', 'dmd', true, 'dm+d code', '322236009', [
    'DMD',
    'dm+d',
    'DMD Code',
    'dm+d Code',
    'SNOMED',
    'SNOMED Code',
    'VMP',
    'AMP',
    'Product Code',
  ]),
  f('productId', 'prescribedItems.*.productId', 'int', false, 'product id', '', ['Product ID']),
  f('medication', 'prescribedItems.*.medication', 'text', true, 'medication', 'Paracetamol 500mg tablets', [
    'Drug',
    'Drug Name',
    'Medication Name',
    'Medicine Name',
    'Medicine',
    'Product',
    'Product Name',
    'Item',
    'Item Description',
  ]),
  f(
    'dosageInstructions',
    'prescribedItems.*.dosageInstructions',
    'text',
    true,
    'dosage instructions',
    'One tablet four times a day',
    ['Dosage', 'Dose', 'Directions', 'Instructions', 'Sig'],
  ),
  f('quantity', 'prescribedItems.*.quantity', 'int', true, 'quantity', '32', ['Qty', 'Quantity Prescribed']),
  f('pack', 'prescribedItems.*.pack', 'int', false, 'packs', '1', ['Packs', 'Pack Count', 'Number Of Packs']),
];

/** The template's columns, in order. */
export const TEMPLATE_COLUMNS: readonly string[] = FIELDS.map((field) => field.column);

const byColumn = new Map(FIELDS.map((field, index) => [field.column, index]));
const byPath = new Map(FIELDS.map((field, index) => [field.path, index]));

/** Index of a field named by its template column or its body path (item paths with `*` or a number). */
export function fieldIndex(key: string): number | undefined {
  return byColumn.get(key) ?? byPath.get(key) ?? byPath.get(key.replace(/\.\d+\./, '.*.'));
}

export function fieldByColumn(column: string): FieldSpec | undefined {
  const index = byColumn.get(column);
  return index === undefined ? undefined : FIELDS[index];
}

const itemPaths: string[][] = [];

/** The body path of a field for one item (`prescribedItems.*.x` → `prescribedItems.2.x`), cached per item. */
export function concretePath(field: FieldSpec, itemIndex: number): string {
  if (field.level === 'order') return field.path;
  const paths = (itemPaths[itemIndex] ??= FIELDS.map((f) => f.path.replace('*', String(itemIndex))));
  return paths[FIELDS.indexOf(field)]!;
}

/** Body path of field `index` for item `itemIndex`, cached. */
export function itemPath(index: number, itemIndex: number): string {
  const paths = (itemPaths[itemIndex] ??= FIELDS.map((f) => f.path.replace('*', String(itemIndex))));
  return paths[index]!;
}

export const ORDER_FIELD_INDEXES: readonly number[] = FIELDS.flatMap((field, i) =>
  field.level === 'order' ? [i] : [],
);
export const ITEM_FIELD_INDEXES: readonly number[] = FIELDS.flatMap((field, i) => (field.level === 'item' ? [i] : []));
export const HOME_TO_DELIVERY: readonly (readonly [number, number])[] = [
  'Address1',
  'Address2',
  'City',
  'County',
  'PostCode',
  'CountryCode',
].map((suffix) => [fieldIndex(`home${suffix}`)!, fieldIndex(`delivery${suffix}`)!] as const);

/** Field labels that are plural nouns ("are required", not "is"), at the end of what describePath says. */
const PLURAL_LABEL = /(?:dosage instructions|packs)$/;

/** `is` or `are`, to follow `describePath(path)`. */
export function verbFor(path: string): 'is' | 'are' {
  return PLURAL_LABEL.test(describePath(path)) ? 'are' : 'is';
}

/** A person-readable name for a dotted body path, e.g. `prescribedItems.1.dmdCode` → "item 2 dm+d code". */
export function describePath(path: string): string {
  const item = /^prescribedItems\.(\d+)\.(.+)$/.exec(path);
  if (item) {
    const field = FIELDS[fieldIndex(`prescribedItems.*.${item[2]}`) ?? -1];
    return `item ${Number(item[1]) + 1} ${field?.label ?? item[2]}`;
  }
  if (path === 'prescribedItems') return 'prescribed items';
  const index = fieldIndex(path);
  return index === undefined ? path : FIELDS[index]!.label;
}
