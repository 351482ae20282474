import { describe, expect, it } from 'vitest';
import { createResponseSchema } from '../../../shared/orders.js';
import { parseWireJson } from '../../../shared/wire-json.js';
import { plainCreateResponse } from './create-response.js';

/** What the full path (lossless parse, then the shared schema) makes of a create's answer, or null if it refuses. */
function fullPath(text: string): unknown {
  try {
    const parsed = createResponseSchema.safeParse(parseWireJson(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

describe('plainCreateResponse', () => {
  it('reads the usual answer, with JSON whitespace, exactly as the schema would', () => {
    for (const text of ['{"orderId":123}', ' {\n\t"orderId" : 1 }\r\n', '{"orderId":999999999999999}']) {
      expect(plainCreateResponse(text)).toEqual(fullPath(text));
      expect(plainCreateResponse(text)).not.toBeNull();
    }
  });

  it('leaves every other text to the full path, which decides (and may refuse) it', () => {
    const others = [
      '{"orderId":5,"status":"new"}', // extra fields: the schema strips them
      '{"orderId":1.0}',
      '{"orderId":1e3}',
      '{"orderId":0}',
      '{"orderId":-4}',
      '{"orderId":012}',
      '{"orderId":"12"}',
      '{"orderId":12345678901234567890}', // beyond the safe integers: the schema refuses it
      '{"orderId":12}{"orderId":13}',
      '{"orderid":12}',
      '\u00a0{"orderId":12}', // not JSON whitespace
      '[{"orderId":12}]',
      '',
    ];
    for (const text of others) expect(plainCreateResponse(text), text).toBeNull();
    // Where the full path accepts one of them, it is still accepted, by the full path.
    expect(fullPath('{"orderId":5,"status":"new"}')).toEqual({ orderId: 5 });
    expect(fullPath('{"orderId":12345678901234567890}')).toBeNull();
  });
});
