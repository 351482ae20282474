import { describe, expect, it } from 'vitest';
import { sampleHl7 } from '../test/support/sample-orders.js';
import { readHl7Order } from './hl7-order.js';
import { HttpError } from './http-io.js';

function refusal(message: string): { field?: string; message: string } {
  try {
    readHl7Order(message);
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) return error.details as { field?: string; message: string };
    throw error;
  }
  throw new Error('expected a 400');
}

describe('reading an HL7 order', () => {
  it('takes the clinic from ORC-21, the order id from ORC-2 and the patient from PID', () => {
    const { message, clinicOrderId } = sampleHl7({ clinicCode: 'CLINIC-X', surname: 'Jones', birthDate: '19691231' });
    expect(readHl7Order(message)).toEqual({
      messageType: 'RDE^O11',
      clinicCode: 'CLINIC-X',
      clinicOrderId,
      patientSurname: 'Jones',
      patientDateOfBirth: '1969-12-31',
    });
  });

  it('accepts \\n or \\r\\n between segments as well as \\r', () => {
    const { message } = sampleHl7({ clinicCode: 'CLINIC-N' });
    expect(readHl7Order(message.replaceAll('\r', '\r\n')).clinicCode).toBe('CLINIC-N');
    expect(readHl7Order(message.replaceAll('\r', '\n')).clinicCode).toBe('CLINIC-N');
  });

  it('refuses other message types, a missing ORC-2, and a message that is not HL7', () => {
    const { message } = sampleHl7();
    expect(refusal(message.replace('RDE^O11^RDE_O11', 'ADT^A01')).field).toBe('MSH-9');
    expect(refusal(message.replace(/ORC\|NW\|[^|]*\|/, 'ORC|NW||')).field).toBe('ORC-2');
    expect(refusal('{"not":"hl7"}').field).toBe('MSH');
  });
});
