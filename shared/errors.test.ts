import { describe, expect, it } from 'vitest';
import { describeErrorBody } from './errors.js';
import { parseWireJson } from './wire-json.js';

const read = (text: string) => {
  let body: unknown = text;
  try {
    body = parseWireJson(text);
  } catch {
    // Not JSON: describeErrorBody copes with the raw text.
  }
  return describeErrorBody(body, text);
};

describe('reading the service error body', () => {
  it('takes the field from a single field-error detail', () => {
    const read1 = read(
      '{"error":"Invalid courier","status":400,"details":{"field":"courierCode","message":"unknown"}}',
    );
    expect(read1.fields).toEqual([{ field: 'courierCode', message: 'unknown' }]);
    expect(read1.message).toBe('Invalid courier: unknown');
    expect(read1.envelope?.status).toBe(400);
  });

  it('takes every field from a validation list', () => {
    const list = read(
      '{"error":"Validation failed","status":400,"details":[{"field":"customer.surname","message":"required"},' +
        '{"field":"deliveryAddress.postCode","message":"invalid"}]}',
    );
    expect(list.fields.map((f) => f.field)).toEqual(['customer.surname', 'deliveryAddress.postCode']);
    expect(list.message).toBe('Validation failed');
  });

  it('uses a message-only detail as the explanation', () => {
    const locked = read('{"error":"Forbidden","status":403,"details":{"message":"Patient is locked out"}}');
    expect(locked).toMatchObject({ message: 'Forbidden: Patient is locked out', fields: [] });
  });

  it('accepts an envelope without details', () => {
    expect(read('{"error":"Not found","status":404}')).toMatchObject({ message: 'Not found', fields: [] });
  });

  it('copes with a plain-text body and with a JSON string body', () => {
    expect(read('Duplicate clinicOrderId')).toMatchObject({ message: 'Duplicate clinicOrderId', fields: [] });
    expect(read('"Order not found"')).toMatchObject({ message: 'Order not found', fields: [] });
  });

  it('says something useful about an empty or HTML body, and keeps it short', () => {
    expect(read('').message).toBe('the service gave no explanation');
    expect(read(`<html>${'x'.repeat(2000)}</html>`).message).toHaveLength(500);
  });
});
