import { describe, expect, it } from 'vitest';
import { toWireJson } from '../../../shared/wire-json.js';
import { sampleV1, sampleV2 } from '../../../test/support/sample-orders.js';
import { checkStoredBody, STORED_BODY_CHECK_VERSION, storedBodyVouch } from './stored-body-check.js';

/** The check behind both the send-time guard and the store's vouch: the same verdicts for the same bytes. */

const EIGHTEEN_DIGITS = '219780111000001103';

describe('checkStoredBody', () => {
  it('passes a valid v1 body whose dm+d code has 18 digits (read as digits, not a rounded number)', () => {
    const body = sampleV1();
    (body.prescribedItems[0] as { dmdCode: string }).dmdCode = EIGHTEEN_DIGITS;
    const text = toWireJson(body);
    expect(text).toContain(`"dmdCode":${EIGHTEEN_DIGITS}`);
    expect(checkStoredBody('v1', text)).toEqual({ ok: true });
  });

  it('passes a valid v2 body on the v2 route and refuses it on v1 (each route has its own schema)', () => {
    const text = toWireJson(sampleV2({ dmdCode: EIGHTEEN_DIGITS }));
    expect(checkStoredBody('v2', text)).toEqual({ ok: true });
    expect(checkStoredBody('v1', text).ok).toBe(false);
  });

  it('refuses text that is not JSON, naming the body', () => {
    expect(checkStoredBody('v1', '{"prescription":')).toEqual({
      ok: false,
      fields: [{ field: '(body)', message: 'the stored body is not JSON' }],
    });
  });

  it('refuses a schema breach, naming the field', () => {
    const body = sampleV1();
    (body.prescribedItems[0] as { quantity: number }).quantity = 0;
    const result = checkStoredBody('v1', toWireJson(body));
    if (result.ok) throw new Error('expected a refusal');
    expect(result.fields.map((f) => f.field)).toContain('prescribedItems.0.quantity');
  });
});

describe('storedBodyVouch', () => {
  it("records the check's version for a body that passes, nothing for one that fails or for HL7", () => {
    const valid = toWireJson(sampleV1());
    const broken = sampleV1();
    (broken.prescribedItems[0] as { quantity: number }).quantity = 0;
    expect(storedBodyVouch('v1', valid)).toBe(STORED_BODY_CHECK_VERSION);
    expect(storedBodyVouch('v1', toWireJson(broken))).toBeNull();
    expect(storedBodyVouch('v2', valid)).toBeNull();
    expect(storedBodyVouch('hl7', 'MSH|^~\\&|')).toBeNull();
  });
});
