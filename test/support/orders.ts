import type { CreateWithClinicV1Input } from '../../shared/orders.js';

let sequence = 0;

/** A complete, valid create-with-clinic body with made-up patient data; override what a test is about. */
export function sampleCreateWithClinic(
  overrides: { dmdCode?: string; clinicCode?: string; clinicOrderId?: string; surname?: string } = {},
): CreateWithClinicV1Input {
  sequence += 1;
  const address = {
    address1: '1 Test Street',
    city: 'Leeds',
    postCode: 'LS1 4AP',
    countryCode: 'GBR',
  };
  return {
    customer: {
      title: 'Ms',
      firstName: 'Alex',
      surname: overrides.surname ?? 'Example',
      dateOfBirth: '1980-01-15',
      gender: 'Female',
      telephone: '07700900123',
      email: 'alex@example.test',
    },
    homeAddress: address,
    deliveryAddress: address,
    prescription: {
      clinicOrderId: overrides.clinicOrderId ?? `T-${Date.now().toString(36)}-${sequence}`,
      paymentType: 'Account',
      courierCode: 'RMT24',
      currencyCode: 'GBP',
    },
    prescribedItems: [
      {
        dmdCode: overrides.dmdCode ?? '42109611000001109',
        pack: 1,
        medication: 'Paracetamol 500mg tablets',
        dosageInstructions: 'Two tablets up to four times a day',
        quantity: 1,
      },
    ],
    prescribingDoctor: { registrationNumber: '7123456', prescriberName: 'Dr Jane Smith' },
    clinicInformation: {
      clinicCode: overrides.clinicCode ?? 'CLINIC-A',
      name: 'Test Clinic',
      address1: '2 Clinic Road',
      postcode: 'LS2 9JT',
      countryCode: 'GBR',
    },
  };
}
