import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import type { Hl7Delimiters } from '../model/hl7-adapter.js';

/**
 * Writes one order as an HL7 v2.5 `RDE^O11` message laid out as the default field map reads it (see
 * hl7-field-map.ts), for fixtures and the round-trip tests. Fields HL7 has no place for (payment type, courier,
 * currency, order value, fees, product id, packs) are not written; an HL7 profile supplies them as constants.
 * The prescriber's whole name goes in the family-name component so it reads back exactly as it was.
 */

export interface RdeWriterOptions {
  controlId?: string;
  /** MSH-7, `YYYYMMDDHHMMSS`; defaults to now (UTC). */
  timestamp?: string;
  orderControl?: 'NW' | 'CA';
  lineEnding?: '\r' | '\n' | '\r\n';
  delimiters?: Hl7Delimiters;
  /** MSH-3; defaults to `RXBATCH`. */
  sendingApplication?: string;
  /** MSH-4; defaults to the clinic code. */
  sendingFacility?: string;
}

const DEFAULT_DELIMITERS: Hl7Delimiters = {
  field: '|',
  component: '^',
  repetition: '~',
  escape: '\\',
  subcomponent: '&',
};

const SEX_CODES: Record<string, string> = { Male: 'M', Female: 'F', Other: 'O', Unknown: 'U' };

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj => (value !== null && typeof value === 'object' ? (value as Obj) : {});

export function writeRde011(order: CreateWithClinicV1Input, options: RdeWriterOptions = {}): string {
  const d = options.delimiters ?? DEFAULT_DELIMITERS;
  const escape = (value: unknown): string => {
    if (value === undefined || value === null) return '';
    let out = '';
    const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
    // `""` would be HL7's null: its first quote is written as a hex escape so the text `""` reads back as it is.
    if (text.trim() === '""') return text.replace('"', `${d.escape}X22${d.escape}`);
    for (const char of text.replace(/\r\n|\r/g, '\n')) {
      if (char === d.escape) out += `${d.escape}E${d.escape}`;
      else if (char === d.field) out += `${d.escape}F${d.escape}`;
      else if (char === d.component) out += `${d.escape}S${d.escape}`;
      else if (char === d.subcomponent) out += `${d.escape}T${d.escape}`;
      else if (char === d.repetition) out += `${d.escape}R${d.escape}`;
      else if (char === '\n') out += `${d.escape}.br${d.escape}`;
      else out += char;
    }
    return out;
  };
  const components = (...values: unknown[]) =>
    values
      .map(escape)
      .join(d.component)
      .replace(new RegExp(`\\${d.component}+$`), '');
  const segment = (...fields: string[]) => fields.join(d.field).replace(new RegExp(`\\${d.field}+$`), '');

  const body = order as unknown as Obj;
  const customer = obj(body.customer);
  const home = obj(body.homeAddress);
  const delivery = body.deliveryAddress ? obj(body.deliveryAddress) : undefined;
  const prescription = obj(body.prescription);
  const doctor = obj(body.prescribingDoctor);
  const clinic = obj(body.clinicInformation);
  const items = Array.isArray(body.prescribedItems) ? (body.prescribedItems as Obj[]) : [];

  const address = (a: Obj, type: string) =>
    components(a.address1, a.address2, a.city, a.county, a.postCode, a.countryCode, type);
  const contacts = (phone: unknown, phoneUse: string, email: unknown) =>
    [
      phone ? components(phone, phoneUse, 'PH') : undefined,
      email ? components('', 'NET', 'Internet', email) : undefined,
    ]
      .filter((rep): rep is string => rep !== undefined)
      .join(d.repetition);
  const field = (count: number, values: Record<number, string>) =>
    Array.from({ length: count + 1 }, (_, i) => (i === 0 ? '' : (values[i] ?? ''))).slice(1);

  const clinicCode = typeof clinic.clinicCode === 'string' ? clinic.clinicCode : '';
  const timestamp = options.timestamp ?? new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const encoding = `${d.component}${d.repetition}${d.escape}${d.subcomponent}`;
  const msh = `MSH${d.field}${encoding}${d.field}${segment(
    escape(options.sendingApplication ?? 'RXBATCH'),
    escape(options.sendingFacility ?? clinicCode),
    'CLOUDRX',
    'PHARMACY',
    timestamp,
    '',
    components('RDE', 'O11', 'RDE_O11'),
    escape(options.controlId ?? `RXB${timestamp}`),
    'P',
    '2.5',
  )}`;
  const sex = typeof customer.gender === 'string' ? (SEX_CODES[customer.gender] ?? customer.gender) : '';
  const pid = segment(
    'PID',
    ...field(13, {
      1: '1',
      5: components(customer.surname, customer.firstName, '', '', customer.title),
      7: escape(typeof customer.dateOfBirth === 'string' ? customer.dateOfBirth.replace(/-/g, '') : ''),
      8: escape(sex),
      11: [address(home, 'H'), ...(delivery ? [address(delivery, 'M')] : [])].join(d.repetition),
      13: contacts(customer.telephone, 'PRN', customer.email),
    }),
  );
  const orc = segment(
    'ORC',
    ...field(23, {
      1: options.orderControl ?? 'NW',
      2: components(prescription.clinicOrderId),
      12: components(doctor.registrationNumber, doctor.prescriberName),
      21: components(clinic.name, '', '', '', '', '', '', '', '', clinic.clinicCode),
      22: components(
        clinic.address1,
        clinic.address2,
        clinic.address3,
        clinic.address4,
        clinic.postcode,
        clinic.countryCode,
      ),
      23: contacts(clinic.contactNumber, 'WPN', clinic.contactEmail),
    }),
  );
  const rxes = items.map((item) =>
    segment(
      'RXE',
      ...field(12, {
        2: components(item.dmdCode, item.medication, 'DMD'),
        7: components('', item.dosageInstructions),
        10: escape(item.quantity),
        12: escape(prescription.repeatsAllowed),
      }),
    ),
  );
  return [msh, pid, orc, ...rxes].join(options.lineEnding ?? '\r');
}
