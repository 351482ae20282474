import { callBridge } from './bridge-client.js';
import type { BrowserModeApp } from './browser-mode.js';

/** The header of the app's own template (`template.example`), as its columns. */
export async function templateHeader(app: BrowserModeApp): Promise<string[]> {
  const template = await callBridge(app, 'template.example', {});
  return template.text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)[0]!
    .split(',');
}

/** One CSV row per item, in the template's own column order (the header comes from the app's template). */
export function csvFromTemplate(header: string[], rows: Array<Record<string, string>>): string {
  const quote = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  return [header.join(','), ...rows.map((row) => header.map((column) => quote(row[column] ?? '')).join(','))].join(
    '\r\n',
  );
}

/** A valid order's row in our template (one item); each test sets its own clinicOrderId. */
export const TEMPLATE_ROW: Readonly<Record<string, string>> = {
  clinicCode: 'CLINIC-E2E',
  title: 'Ms',
  firstName: 'Alex',
  surname: 'Example',
  dateOfBirth: '1980-01-15',
  gender: 'Female',
  telephone: '07700900123',
  homeAddress1: '1 High Street',
  homeCity: 'Leeds',
  homePostCode: 'LS1 4AP',
  homeCountryCode: 'GBR',
  paymentType: 'Account',
  courierCode: 'RMT24',
  currencyCode: 'GBP',
  repeatsAllowed: '0',
  prescriberRegistrationNumber: '7123456',
  prescriberName: 'Dr Jane Smith',
  clinicName: 'Journey Clinic',
  clinicAddress1: '10 Market Street',
  clinicPostcode: 'YO1 7HH',
  clinicCountryCode: 'GBR',
  dmdCode: '42109611000001109',
  medication: 'Paracetamol 500mg tablets',
  dosageInstructions: 'Two tablets up to four times a day',
  quantity: '32',
  pack: '1',
};
