import { describe, expect, it } from 'vitest';
import { dmdCodeSchema } from './dmd.js';
import { createWithClinicV1Schema } from './orders.js';
import { parseWireJson, toWireJson } from './wire-json.js';
import { sampleCreateWithClinic } from '../test/support/orders.js';

// Real dm+d codes (17 digits, Verhoeff-valid) and 18-digit codes in the dm+d namespace 1000001 with valid
// partition and check digit: codes of that length are what the service must take without losing a digit.
const SEVENTEEN = ['42109611000001109', '39732311000001104', '10362601000001103'];
const EIGHTEEN = ['123456781000001114', '230789111000001110', '350102111000001116'];

describe('dm+d codes on the wire', () => {
  it.each([...SEVENTEEN, ...EIGHTEEN])('%s is written as a JSON number token, digit for digit', (code) => {
    const body = createWithClinicV1Schema.parse(sampleCreateWithClinic({ dmdCode: code }));
    const wire = toWireJson(body);
    expect(wire).toContain(`"dmdCode":${code}`);
    expect(wire).not.toContain(`"dmdCode":"${code}"`);
    // A plain JSON.parse would round it: prove the code is beyond what a double holds, where it matters.
    if (code.length === 18) expect(String(JSON.parse(`${code}`))).not.toBe(code);
  });

  it.each([...SEVENTEEN, ...EIGHTEEN])('%s reads back from the wire exactly', (code) => {
    const parsed = parseWireJson(`{"items":[{"dmdCode":${code},"quantity":2}]}`) as {
      items: Array<{ dmdCode: unknown; quantity: unknown }>;
    };
    expect(dmdCodeSchema.parse(parsed.items[0]?.dmdCode)).toBe(code);
    expect(parsed.items[0]?.quantity).toBe(2);
  });

  it('round-trips a whole create-with-clinic body unchanged', () => {
    const body = createWithClinicV1Schema.parse(sampleCreateWithClinic({ dmdCode: EIGHTEEN[0] }));
    expect(createWithClinicV1Schema.parse(parseWireJson(toWireJson(body)))).toEqual(body);
  });

  it('leaves a dmdCode-looking string elsewhere as a string', () => {
    const wire = toWireJson({ note: '123456781000001114', nested: { dmdCode: 'not digits' } });
    expect(wire).toBe('{"note":"123456781000001114","nested":{"dmdCode":"not digits"}}');
  });

  it('refuses a dm+d code that already lost digits as a JavaScript number', () => {
    // Written as text here: as a literal it would already be the rounded double the schema must refuse.
    expect(dmdCodeSchema.safeParse(Number('123456781000001114')).success).toBe(false);
    expect(dmdCodeSchema.safeParse(42109611000001).success).toBe(true);
  });

  it.each(['0123', '1234567890123456789', '12a4', ''])('refuses %j as a dm+d code', (code) => {
    expect(dmdCodeSchema.safeParse(code).success).toBe(false);
  });
});
