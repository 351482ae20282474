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

  it('reads bodies that are not the documented envelope but say something, instead of showing raw JSON', () => {
    // No status.
    expect(read('{"error":"Invalid courier"}')).toMatchObject({ message: 'Invalid courier', fields: [] });
    // The message as a list, and an unexpected details shape.
    expect(
      read('{"error":"Validation failed","status":400,"details":{"message":["surname required","bad dob"]}}'),
    ).toMatchObject({ message: 'Validation failed: surname required; bad dob' });
    expect(read('{"message":["a","b"],"statusCode":400}')).toMatchObject({ message: 'a; b' });
    // { error: { code, message } }, and Web API's Message / ModelState.
    expect(read('{"error":{"code":"E12","message":"Clinic not found"}}')).toMatchObject({
      message: 'Clinic not found',
    });
    expect(
      read('{"Message":"The request is invalid.","ModelState":{"prescription.courierCode":["Unknown courier"]}}'),
    ).toEqual({
      message: 'The request is invalid.',
      fields: [{ field: 'prescription.courierCode', message: 'Unknown courier' }],
    });
    // RFC 9457 problem details, as ASP.NET Core answers a validation failure.
    expect(
      read(
        '{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.1","title":"One or more validation errors occurred.",' +
          '"status":400,"traceId":"00-ab","errors":{"Prescription.ClinicOrderId":["Duplicate clinicOrderId","Too long"]}}',
      ),
    ).toEqual({
      message: 'One or more validation errors occurred.',
      fields: [{ field: 'Prescription.ClinicOrderId', message: 'Duplicate clinicOrderId; Too long' }],
    });
    expect(read('{"title":"Conflict","status":409,"detail":"clinicOrderId A-1 already exists"}')).toMatchObject({
      message: 'Conflict: clinicOrderId A-1 already exists',
    });
    // A bare list of field errors; validation lists named otherwise.
    expect(read('[{"propertyName":"customer.surname","errorMessage":"required"}]')).toEqual({
      message: 'required',
      fields: [{ field: 'customer.surname', message: 'required' }],
    });
    // Nothing recognisable: the text, short.
    expect(read('{"foo":1}')).toMatchObject({ message: '{"foo":1}', fields: [] });
  });

  it('keeps whatever it reads bounded: a 1 MB message, 10,000 field errors', () => {
    const huge = read(JSON.stringify({ error: 'x'.repeat(1_000_000), status: 400 }));
    expect(huge.message).toHaveLength(500);
    const many = read(
      JSON.stringify({
        title: 'bad',
        errors: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, 'no'])),
      }),
    );
    expect(many.fields).toHaveLength(50);
    const listed = read(
      JSON.stringify({
        error: 'bad',
        status: 400,
        details: Array.from({ length: 10_000 }, () => ({ field: 'f', message: 'm' })),
      }),
    );
    expect(listed.fields).toHaveLength(50);
    const long = read(
      JSON.stringify({
        error: 'bad',
        status: 400,
        details: { field: 'f'.repeat(1_000), message: 'm'.repeat(1_000_000) },
      }),
    );
    expect(long.fields.map((field) => [field.field.length, field.message.length])).toEqual([[200, 500]]);
  });
});
