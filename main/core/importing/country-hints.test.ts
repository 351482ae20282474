import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { validateOrder } from './validate-order.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * The country fields take ISO 3166 three-letter codes (GBR). Senders write the United Kingdom as the two-letter
 * `GB`, as `UK` (not an ISO code at all) or in words; the error now names GBR for them, not just "such as GBR".
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const BASE = writeRde011(exampleOrder('C-1'), { timestamp: '20250101120000' }).split('\r');

async function importCountry(country: string) {
  const text = BASE.map((segment) => {
    if (!segment.startsWith('PID|')) return segment;
    const parts = segment.split('|');
    parts[11] = parts[11]!
      .split('~')
      .map((rep) => {
        const components = rep.split('^');
        components[5] = country;
        return components.join('^');
      })
      .join('~');
    return parts.join('|');
  }).join('\r');
  const { orders } = await importHl7Message(Buffer.from(text), 'country.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile: PROFILE,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  return orders[0]!.order;
}

describe('PID-11.6 written as the United Kingdom but not as GBR', () => {
  it.each(['UK', 'GB', 'gb', 'United Kingdom', 'England'])('%s is refused, saying to write GBR', async (country) => {
    const order = await importCountry(country);
    const found = order.problems.filter((p) => p.field === 'homeAddress.countryCode');
    expect(found).toMatchObject([{ code: 'country.format', file: 'country.hl7', message: 1, severity: 'error' }]);
    expect(found[0]!.text).toContain('PID-11.6');
    expect(found[0]!.text).toMatch(/the United Kingdom is GBR: write GBR/);
  });

  it('another wrong code gets no United Kingdom hint', async () => {
    const order = await importCountry('FR');
    const [found] = order.problems.filter((p) => p.field === 'homeAddress.countryCode');
    expect(found!.text).not.toContain('United Kingdom');
  });
});

describe('a CSV country column', () => {
  it('names GBR for GB too', () => {
    const problems = validateOrder(
      exampleOrder('C-2', (o) => (o.clinicInformation.countryCode = 'GB')),
      { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z'), file: 'f.csv' },
    );
    expect(problems.map((p) => p.text)).toEqual([expect.stringMatching(/'GB' .*the United Kingdom is GBR: write GBR/)]);
  });
});
