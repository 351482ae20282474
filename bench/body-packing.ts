import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, deflateRawSync } from 'node:zlib';
import { toWireJson } from '../shared/wire-json.js';
import type { OrderRoute } from '../main/core/store/order-state.js';
import { packRequestBody, unpackRequestBody } from '../main/core/store/request-body-codec.js';
import { scaleOrderBody, seededRandom } from '../main/core/store/testing/scale-store.js';

/**
 * What packing does to request bodies (retention, migration 020): bytes a body as text, deflateRaw without a
 * dictionary, brotli (quality 11, its built-in dictionary), and the packed form (deflateRaw with the route's preset
 * dictionary, header included); then the time to pack and to read one back. Three corpora: the scale store's
 * bodies (bench:scale), bodies drawn from word lists the dictionary does not hold (other names, towns,
 * medications, 1 to 4 items), and the HL7 messages of the test fixtures.
 *
 *   npx tsx bench/body-packing.ts
 */

const random = seededRandom(7);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
const FIRST = ['Olivia', 'Noah', 'Amelia', 'Oliver', 'Isla', 'George', 'Priya', 'Chen', 'Siobhan', 'Tomasz'];
const LAST = ['Okafor', 'Nowak', 'Fitzgerald', 'Kaur', 'MacLeod', 'Hughes', 'Evans', 'Zhang', 'Haddad'];
const STREET = ['Church', 'Station', 'Victoria', 'Mill', 'Albert', 'Queens', 'Manor', 'Grange'];
const TOWN = ['Bristol', 'Norwich', 'Swansea', 'Derby', 'Carlisle', 'Truro', 'Glasgow', 'Belfast'];
const MEDICATION = [
  'Amoxicillin 500mg capsules',
  'Omeprazole 20mg gastro-resistant capsules',
  'Sertraline 50mg tablets',
  'Salbutamol 100micrograms/dose inhaler',
  'Atorvastatin 40mg tablets',
  'Levothyroxine sodium 50microgram tablets',
  'Hydrocortisone 1% cream',
];
const DOSAGE = [
  'Take one capsule three times a day for 7 days',
  'Take one tablet once a day',
  'Two puffs when required',
  'Apply thinly twice a day',
  'Take one tablet twice a day with food',
];
const number = (below: number) => Math.floor(random() * below);
const postCode = () =>
  `${pick(['BS', 'NR', 'SA', 'DE', 'CA', 'TR', 'G', 'BT'])}${1 + number(20)} ${number(9)}${pick(['AB', 'XY', 'QT'])}`;

function variedBody(index: number): unknown {
  const address = () => ({
    address1: `${1 + number(200)} ${pick(STREET)} ${pick(['Street', 'Road', 'Lane', 'Avenue'])}`,
    ...(random() < 0.3 ? { address2: `Flat ${1 + number(30)}` } : {}),
    city: pick(TOWN),
    postCode: postCode(),
    countryCode: 'GBR',
  });
  const home = address();
  const [first, last] = [pick(FIRST), pick(LAST)];
  return {
    customer: {
      title: pick(['Mr', 'Mrs', 'Ms', 'Miss', 'Dr']),
      firstName: first,
      surname: last,
      dateOfBirth: `19${40 + number(60)}-0${1 + number(9)}-1${number(9)}`,
      gender: pick(['Male', 'Female']),
      telephone: `07${String(number(1e9)).padStart(9, '0')}`,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${number(99)}@${pick(['gmail.com', 'btinternet.com'])}`,
    },
    homeAddress: home,
    deliveryAddress: random() < 0.8 ? home : address(),
    prescription: {
      clinicOrderId: `RX-${2025000000 + index}`,
      paymentType: 'Account',
      courierCode: pick(['RMT24', 'DPD', 'RMT48']),
      currencyCode: 'GBP',
    },
    prescribedItems: Array.from({ length: 1 + Math.floor(random() * random() * 4) }, () => ({
      dmdCode: String(3e16 + number(1e16)),
      pack: 1 + number(3),
      medication: pick(MEDICATION),
      dosageInstructions: pick(DOSAGE),
      quantity: 1 + number(4),
    })),
    prescribingDoctor: { registrationNumber: String(1000000 + number(8999999)), prescriberName: `Dr ${pick(LAST)}` },
    clinicInformation: {
      clinicCode: `CL-${number(40)}`,
      name: `${pick(TOWN)} Skin Clinic`,
      address1: `${1 + number(90)} ${pick(STREET)} Road`,
      postcode: postCode(),
      countryCode: 'GBR',
    },
  };
}

function hl7Messages(): string[] {
  const dir = fileURLToPath(new URL('../test/fixtures/import/', import.meta.url));
  return readdirSync(dir)
    .filter((name) => name.endsWith('.hl7'))
    .flatMap((name) => readFileSync(`${dir}${name}`, 'latin1').split(/(?=MSH\|)/))
    .filter((message) => message.startsWith('MSH|^~\\&|') && message.length > 200)
    .map((message) => message.replace(/\r?\n/g, '\r'));
}

function measure(name: string, route: OrderRoute, bodies: string[]) {
  const mean = (size: (body: string) => number) =>
    Math.round(bodies.reduce((sum, body) => sum + size(body), 0) / bodies.length);
  const brotli = (body: string) =>
    brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  const packStart = process.hrtime.bigint();
  const packed = bodies.map((body) => packRequestBody(route, body));
  const packUs = Number(process.hrtime.bigint() - packStart) / 1e3 / bodies.length;
  const readStart = process.hrtime.bigint();
  for (const blob of packed) unpackRequestBody(blob);
  const readUs = Number(process.hrtime.bigint() - readStart) / 1e3 / bodies.length;
  return {
    corpus: name,
    bodies: bodies.length,
    text: mean((body) => Buffer.byteLength(body)),
    deflateRaw: mean((body) => deflateRawSync(body, { level: 9 }).length),
    brotli: mean(brotli),
    packed: Math.round(packed.reduce((sum, blob) => sum + blob.length, 0) / packed.length),
    packUs: Number(packUs.toFixed(1)),
    readUs: Number(readUs.toFixed(1)),
  };
}

const scaleRandom = seededRandom(1);
console.table([
  measure(
    'scale store (v1)',
    'v1',
    Array.from({ length: 2000 }, (_, i) => toWireJson(scaleOrderBody(i, scaleRandom))),
  ),
  measure(
    'varied (v1)',
    'v1',
    Array.from({ length: 2000 }, (_, i) => toWireJson(variedBody(i))),
  ),
  measure('HL7 fixtures', 'hl7', hl7Messages()),
]);
