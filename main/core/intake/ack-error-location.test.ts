import { describe, expect, it } from 'vitest';
import { sendWithLibrary } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { errorLocation } from './hl7-ack.js';
import { MLLP_SENDER, mllpIntakePerTest } from './testing/mllp-intake.js';

// An ACK's ERR says where in the message each problem is (ERR-2, HL7's error location), so the sender's interface
// engine can point at the field; before, ERR-2 was empty for every problem of the order, and a missing required
// field had ERR-3 102 (data type error) rather than 101 (required field missing), and no location at all.

const start = mllpIntakePerTest();

describe('errorLocation', () => {
  it.each([
    ['PID-11[2].5', 'deliveryAddress.postCode', 'PID^1^11^2^5'],
    ['PID-5.1', 'customer.surname', 'PID^1^5^1^1'],
    ['RXE-7', 'prescribedItems.1.dosageInstructions', 'RXE^2^7'],
    ['RXE-2.1', 'prescribedItems.0.dmdCode', 'RXE^1^2^1^1'],
    ['ORC-12.1', 'prescribingDoctor.registrationNumber', 'ORC^1^12^1^1'],
  ])('reads %s (%s) as %s', (path, field, location) => {
    expect(errorLocation(path, field)).toBe(location);
  });

  it('gives none for what was not read from a field', () => {
    expect(errorLocation(undefined, 'prescription.paymentType')).toBeUndefined();
    expect(errorLocation('a constant', 'prescription.paymentType')).toBeUndefined();
  });
});

describe('the ACK of an order with problems', () => {
  it('locates each problem read from a field, and a missing field is ERR-3 101 where it is read from', async () => {
    const r = await start({ mode: 'hold' });
    const order = uniqueOrder({}, 'LOC');
    const text = writeRde011(order, { controlId: 'LOC-1', timestamp: '20261202101500', ...MLLP_SENDER })
      .replace(/(\rPID(?:\|[^|\r]*){7})\|[^|\r]*/, '$1|')
      .replace(/LS1 4AP/g, 'NOT A POSTCODE');
    const [ack] = await sendWithLibrary(r.port, [text]);
    expect(ack!.get('MSA.1')).toBe('AA');
    const at = (field: string) => ack!.errors.find((e) => e.text.startsWith(`${field}:`));
    expect(at('homeAddress.postCode')).toMatchObject({ code: '102', location: 'PID^1^11^1^5' });
    expect(at('deliveryAddress.postCode')).toMatchObject({ code: '102', location: 'PID^1^11^2^5' });
    // A required field the message left out: where it is read from, so the sender's engine can point at it.
    expect(at('customer.gender')).toMatchObject({ code: '101', location: 'PID^1^8' });
  });

  it('gives an ORC-1 that is neither NW nor CA as a value not in the table (103), none as missing (101), at ORC-1', async () => {
    const r = await start({ mode: 'hold' });
    const text = (controlId: string, orderControl: string) =>
      writeRde011(uniqueOrder({}, 'LOC'), { controlId, timestamp: '20261202101500', ...MLLP_SENDER }).replace(
        /\rORC\|NW\|/,
        `\rORC|${orderControl}|`,
      );
    const [changed, empty] = await sendWithLibrary(r.port, [text('LOC-4', 'XO'), text('LOC-5', '')]);
    expect(changed!.get('MSA.1')).toBe('AE');
    expect(changed!.errors).toContainEqual(expect.objectContaining({ code: '103', location: 'ORC^1^1' }));
    expect(empty!.get('MSA.1')).toBe('AE');
    expect(empty!.errors).toContainEqual(expect.objectContaining({ code: '101', location: 'ORC^1^1' }));
  });

  it('gives a dosage said to be in a note or the timing as the required field it is, not a segment error', async () => {
    const r = await start({ mode: 'hold' });
    const order = uniqueOrder({}, 'LOC');
    const noDosage = writeRde011(order, { controlId: 'LOC-2', timestamp: '20261202101500', ...MLLP_SENDER }).replace(
      /(\rRXE(?:\|[^|\r]*){6})\|[^|\r]*/,
      '$1|',
    );
    const inNote = noDosage.replace(/(\rRXE[^\r]*)/, '$1\rNTE|1||Take one daily');
    const inTiming = noDosage.replace(/\rORC\|[^\r]*/, (orc) => `${orc}\rTQ1|1||||||||||One at night`);
    const acks = await sendWithLibrary(r.port, [inNote, inTiming.replace('LOC-2', 'LOC-3')]);
    for (const ack of acks) {
      const dosage = ack.errors.find((e) => e.text.startsWith('prescribedItems.0.dosageInstructions:'));
      expect(dosage).toMatchObject({ code: '101', location: 'RXE^1^7' });
    }
  });
});
