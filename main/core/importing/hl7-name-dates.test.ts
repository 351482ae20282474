import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { patientSurnameOf } from '../store/request-body-fields.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * PID-5 names with dates (XPN-12 effective, XPN-13 expiration): a name the patient no longer goes by on the day the
 * message was written (MSH-7) is not the one sent, while another of its kind is current.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

/** The example order's message, written on 2025-01-01, with `names` as its PID-5. */
function messageWithNames(names: string): string {
  return writeRde011(exampleOrder('R-1'), { timestamp: '20250101120000' })
    .split('\r')
    .map((s) => (s.startsWith('PID|') ? s.replace('Example^Alex^^^Ms', names) : s))
    .join('\r');
}

async function imported(names: string) {
  const { orders } = await importHl7Message(Buffer.from(messageWithNames(names)), 'names.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  expect(orders).toHaveLength(1);
  return orders[0]!.order;
}

const surnameOf = (order: Awaited<ReturnType<typeof imported>>) =>
  (order.body as { customer: { surname: string } }).customer.surname;
const codes = (order: Awaited<ReturnType<typeof imported>>) => order.problems.map((p) => p.code);

describe('PID-5 names with effective and expiry dates', () => {
  it('an expired legal name (a maiden name) beside the current one: the current one, and no tie', async () => {
    const order = await imported('Former^Alex^^^Ms^^L^^^^^19900101^20100601~Example^Alex^^^Ms^^L^^^^^20100601');
    expect(surnameOf(order)).toBe('Example');
    expect(codes(order)).not.toContain('hl7.repeatChoice');
    // The store's surname search reads the same repetition from the stored message.
    expect(patientSurnameOf('hl7', messageWithNames('Former^Alex^^^Ms^^L^^^^^^20100601~Example^Alex^^^Ms^^L'))).toBe(
      'Example',
    );
  });

  it('a legal name that takes effect after the message: the current one', async () => {
    const order = await imported('Married^Alex^^^Mrs^^L^^^^^20250301~Example^Alex^^^Ms^^L');
    expect(codes(order)).not.toContain('hl7.repeatChoice');
    expect(surnameOf(order)).toBe('Example');
  });

  it('an expired legal name and a display name: the display name, being current', async () => {
    const order = await imported('Former^Alex^^^Ms^^L^^^^^^20100601~Example^Alex^^^Ms^^D');
    expect(surnameOf(order)).toBe('Example');
  });

  it('every name out of date: read as before (legal first), not dropped', async () => {
    const order = await imported('Former^Alex^^^Ms^^D^^^^^^20100601~Example^Alex^^^Ms^^L^^^^^^20120101');
    expect(surnameOf(order)).toBe('Example');
  });
});
