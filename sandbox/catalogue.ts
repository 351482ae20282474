/**
 * The sandbox's product and courier catalogue. dm+d codes are SNOMED CT identifiers: a few short international
 * ones, and UK-extension ones (namespace 1000001, partition 10) of 17 and 18 digits with valid Verhoeff check
 * digits. The 17- and 18-digit codes are beyond 2^53 on purpose: they are the ones a careless client rounds.
 */

export interface CatalogueProduct {
  productId: number;
  /** Digit string; written to the wire as a JSON number token. */
  dmdCode: string;
  name: string;
  packSize: number;
  form: string;
  strength: string;
  stock: number;
  /** Price of one pack in GBP. */
  unitPrice: number;
}

type Row = [
  dmdCode: string,
  name: string,
  form: string,
  strength: string,
  packSize: number,
  unitPrice: number,
  stock: number,
];

const rows: Row[] = [
  ['322236009', 'Paracetamol 500mg tablets', 'Tablet', '500mg', 32, 0.89, 240],
  ['323509004', 'Amoxicillin 500mg capsules', 'Capsule', '500mg', 21, 2.4, 60],
  ['39732311000001104', 'Ibuprofen 200mg tablets', 'Tablet', '200mg', 24, 1.15, 180],
  ['41753111000001100', 'Omeprazole 20mg gastro-resistant capsules', 'Gastro-resistant capsule', '20mg', 28, 1.95, 120],
  ['39518111000001107', 'Lansoprazole 30mg gastro-resistant capsules', 'Gastro-resistant capsule', '30mg', 28, 2.1, 75],
  ['42113511000001106', 'Atorvastatin 20mg tablets', 'Tablet', '20mg', 28, 1.3, 200],
  ['36777111000001108', 'Simvastatin 40mg tablets', 'Tablet', '40mg', 28, 1.05, 90],
  ['32117111000001106', 'Amlodipine 5mg tablets', 'Tablet', '5mg', 28, 0.95, 150],
  ['34256111000001105', 'Ramipril 5mg capsules', 'Capsule', '5mg', 28, 1.2, 110],
  ['32181111000001102', 'Metformin 500mg tablets', 'Tablet', '500mg', 84, 2.25, 95],
  ['31998111000001108', 'Levothyroxine sodium 50microgram tablets', 'Tablet', '50microgram', 28, 1.6, 130],
  ['32667111000001106', 'Sertraline 50mg tablets', 'Tablet', '50mg', 28, 1.4, 85],
  ['37356111000001105', 'Citalopram 20mg tablets', 'Tablet', '20mg', 28, 1.1, 0],
  ['31859111000001101', 'Fluoxetine 20mg capsules', 'Capsule', '20mg', 30, 1.35, 70],
  [
    '39900111000001103',
    'Salbutamol 100micrograms/dose inhaler CFC free',
    'Pressurised inhalation',
    '100micrograms/dose',
    1,
    3.2,
    45,
  ],
  [
    '32076111000001106',
    'Beclometasone 100micrograms/dose inhaler CFC free',
    'Pressurised inhalation',
    '100micrograms/dose',
    1,
    7.5,
    0,
  ],
  ['33338111000001100', 'Doxycycline 100mg capsules', 'Capsule', '100mg', 8, 2.05, 55],
  ['34974111000001104', 'Clarithromycin 500mg tablets', 'Tablet', '500mg', 14, 3.6, 40],
  ['36211111000001102', 'Prednisolone 5mg tablets', 'Tablet', '5mg', 28, 1.25, 65],
  ['33188111000001101', 'Naproxen 500mg tablets', 'Tablet', '500mg', 56, 2.75, 80],
  ['219780111000001103', 'Finasteride 1mg tablets', 'Tablet', '1mg', 28, 4.95, 120],
  ['365895111000001107', 'Sildenafil 50mg tablets', 'Tablet', '50mg', 4, 1.85, 300],
  ['177803111000001105', 'Tadalafil 10mg tablets', 'Tablet', '10mg', 4, 2.6, 0],
  ['104954111000001105', 'Levonorgestrel 1.5mg tablet', 'Tablet', '1.5mg', 1, 5.2, 48],
  ['203680111000001105', 'Desogestrel 75microgram tablets', 'Tablet', '75microgram', 84, 3.9, 60],
  ['378119111000001107', 'Aciclovir 400mg tablets', 'Tablet', '400mg', 56, 3.15, 35],
  ['388540111000001100', 'Fexofenadine 180mg tablets', 'Tablet', '180mg', 30, 2.95, 140],
  ['400511111000001104', 'Mometasone 50micrograms/dose nasal spray', 'Nasal spray', '50micrograms/dose', 1, 6.4, 25],
  ['412520111000001109', 'Atovaquone 250mg / Proguanil 100mg tablets', 'Tablet', '250mg/100mg', 12, 24.5, 0],
  ['172446111000001101', 'Chloramphenicol 0.5% eye drops', 'Eye drops', '0.5%', 1, 2.3, 30],
  ['34175111000001103', 'Orlistat 120mg capsules', 'Capsule', '120mg', 84, 31.99, 0],
  ['31273111000001106', 'Propranolol 10mg tablets', 'Tablet', '10mg', 28, 0.99, 210],
];

export const PRODUCTS: readonly CatalogueProduct[] = rows.map(
  ([dmdCode, name, form, strength, packSize, unitPrice, stock], index) => ({
    productId: 1001 + index,
    dmdCode,
    name,
    packSize,
    form,
    strength,
    stock,
    unitPrice,
  }),
);

export interface CourierOffer {
  courierCode: string;
  /** The integer the v2 create shape uses for this courier (the default code lists' mapping). */
  v2Code: number;
  deliveryOption: string;
  price: number;
  currencyCode: string;
  /** How this courier's tracking ids look: a prefix, a digit count, a suffix. */
  tracking: { prefix: string; digits: number; suffix: string };
}

export const COURIERS: readonly CourierOffer[] = [
  {
    courierCode: 'RMT24',
    v2Code: 1,
    deliveryOption: 'Royal Mail Tracked 24',
    price: 3.95,
    currencyCode: 'GBP',
    tracking: { prefix: 'RM', digits: 9, suffix: 'GB' },
  },
  {
    courierCode: 'RMT48',
    v2Code: 2,
    deliveryOption: 'Royal Mail Tracked 48',
    price: 2.95,
    currencyCode: 'GBP',
    tracking: { prefix: 'RN', digits: 9, suffix: 'GB' },
  },
  {
    courierCode: 'DPD',
    v2Code: 3,
    deliveryOption: 'DPD Next Day',
    price: 6.5,
    currencyCode: 'GBP',
    tracking: { prefix: '', digits: 14, suffix: '' },
  },
];
