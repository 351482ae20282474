import { createWithClinicV1Schema, type CreateV2, type CreateWithClinicV1 } from '../../shared/orders.js';
import { sampleCreateWithClinic } from './orders.js';

/**
 * Parsed request bodies for the Order Service client (which takes schema output) and an HL7 order message,
 * all with made-up patient data. Every call gets a fresh clinicOrderId unless one is given.
 */

let sequence = 0;
const nextClinicOrderId = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(sequence += 1)}`;

export function sampleV1(overrides: Parameters<typeof sampleCreateWithClinic>[0] = {}): CreateWithClinicV1 {
  return createWithClinicV1Schema.parse(
    sampleCreateWithClinic({ clinicOrderId: nextClinicOrderId('V1'), ...overrides }),
  );
}

export function sampleV2(
  overrides: {
    clinicCode?: string;
    clinicOrderId?: string;
    dmdCode?: string;
    courierCode?: number;
    surname?: string;
    dateOfBirth?: string;
  } = {},
): CreateV2 {
  return {
    customer: {
      title: 2,
      firstName: 'Sam',
      surname: overrides.surname ?? 'Sample',
      dateOfBirth: overrides.dateOfBirth ?? '1975-06-30T00:00:00Z',
      gender: 'Male',
      telephone: '07700900456',
      email: 'sam@example.test',
    },
    deliveryAddress: { address1: '3 Test Lane', city: 'York', postCode: 'YO1 7HH', countryCode: 'GBR' },
    prescription: {
      clinicOrderId: overrides.clinicOrderId ?? nextClinicOrderId('V2'),
      paymentType: 1,
      courierCode: overrides.courierCode ?? 1,
      currencyCode: 'GBP',
    },
    prescribedItems: [
      {
        dmdCode: overrides.dmdCode ?? '322236009',
        pack: 1,
        medication: 'Paracetamol 500mg tablets',
        dosageInstructions: 'One or two tablets every four to six hours',
        quantity: 2,
        allowedRepeats: 0,
      },
    ],
    prescribingDoctor: { registrationNumber: '7123456', prescriberName: 'Dr Jane Smith' },
    clinicInformation: { clinicCode: overrides.clinicCode ?? 'CLINIC-A' },
  };
}

/** An `RDE^O11` message with `\r` separators; the clinic code sits in ORC-21 (component 10), as the app writes it. */
export function sampleHl7(
  overrides: {
    clinicCode?: string | null;
    sendingFacility?: string;
    clinicOrderId?: string;
    surname?: string;
    birthDate?: string;
  } = {},
): { message: string; clinicOrderId: string } {
  const clinicOrderId = overrides.clinicOrderId ?? nextClinicOrderId('H');
  const orc = ['ORC', 'NW', `${clinicOrderId}^RXBATCH`, ...Array<string>(18).fill(''), ''];
  const clinicCode = overrides.clinicCode === undefined ? 'CLINIC-H' : overrides.clinicCode;
  if (clinicCode !== null) orc[21] = `Test Clinic^^^^^^^^^${clinicCode}`;
  const message = [
    `MSH|^~\\&|RXBATCH|${overrides.sendingFacility ?? ''}|CLOUDRX|PHARMACY|20250101120000||RDE^O11^RDE_O11|MSG-${clinicOrderId}|P|2.5`,
    `PID|1||PAT-1^^^RXBATCH||${overrides.surname ?? 'Example'}^Alex||${overrides.birthDate ?? '19800115'}|F`,
    orc.join('|'),
    'RXE|^^^20250101|42109611000001109^Paracetamol 500mg tablets^DMD|1||TAB|||||32',
  ].join('\r');
  return { message, clinicOrderId };
}
