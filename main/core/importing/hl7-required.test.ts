import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { requiredFieldPath } from './hl7-required.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { FIXTURE_DIR, exampleOrder } from './testing/write-fixtures.js';

/**
 * A required field an HL7 order lacks names the field of the message it is read from, and what to do: public
 * converters' sample messages (Microsoft FHIR-Converter, LinuxForHealth) leave PID-5.5, ORC-12 or ORC-22.6 empty, and
 * "Title is required." told the admin nothing to ask the sender for.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

/** The segments with field `field` of the first `name` segment emptied. */
function without(segments: readonly string[], name: string, field: number): string[] {
  return segments.map((segment) => {
    if (!segment.startsWith(`${name}|`)) return segment;
    const fields = segment.split('|');
    fields[field] = '';
    return fields.join('|');
  });
}

async function required(text: string, profile: MappingProfile = PROFILE) {
  const { orders } = await importHl7Message(Buffer.from(text), 'sample.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    profile,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  return orders[0]!.order.problems.filter((p) => p.code === 'field.required');
}

const RDE = writeRde011(exampleOrder('R-1'), { timestamp: '20250101120000' }).split('\r');

describe('an HL7 order missing a required field', () => {
  it('names the PID field of a patient value, and says to ask the sender or type it in the preview', async () => {
    const pid = RDE.find((s) => s.startsWith('PID|'))!.split('|');
    const name = pid[5]!.split('^');
    name[4] = '';
    pid[5] = name.join('^');
    const problems = await required(RDE.map((s) => (s.startsWith('PID|') ? pid.join('|') : s)).join('\r'));
    expect(problems).toEqual([
      {
        severity: 'error',
        file: 'sample.hl7',
        message: 1,
        field: 'customer.title',
        code: 'field.required',
        text: 'Title is required: the message has no value in PID-5.5 (the name prefix). Ask the sender to fill it, or type it in the preview.',
      },
    ]);
  });

  it('names the repetition of PID-5 the name was read from, when its type chose another than the first', async () => {
    // A display name first (XPN-7 D), then the legal name (L) with no given name or title: the legal name is read.
    const pid = RDE.find((s) => s.startsWith('PID|'))!.split('|');
    pid[5] = 'Example^Adam^^^Dr^^D~Josh^^^^^^L';
    const problems = await required(RDE.map((s) => (s.startsWith('PID|') ? pid.join('|') : s)).join('\r'));
    expect(problems.map((p) => p.text)).toEqual([
      'Title is required: the message has no value in PID-5[2].5 (name repetition 2, chosen by its type: the name prefix). Ask the sender to fill it, or type it in the preview.',
      'First name is required: the message has no value in PID-5[2].2 (name repetition 2, chosen by its type: the given name). Ask the sender to fill it, or type it in the preview.',
    ]);
  });

  it('names ORC-12 for the prescriber, where a constant in the profile may do', async () => {
    const problems = await required(without(RDE, 'ORC', 12).join('\r'));
    expect(problems.map((p) => p.text)).toEqual([
      'Prescriber registration number is required: the message has no value in ORC-12.1. Ask the sender to fill it, or give the field a constant in the mapping profile (one value for every order of this sender).',
      'Prescriber name is required: the message has no value in ORC-12 (the ordering provider: its .2, .3 and .6). Ask the sender to fill it, or give the field a constant in the mapping profile (one value for every order of this sender).',
    ]);
  });

  it("names RXO's field in an OMP^O09, and a profile override's own path", async () => {
    const omp = (await readFile(join(FIXTURE_DIR, 'omp-o09.hl7'), 'utf8')).split(/\r\n|\r|\n/).filter(Boolean);
    const noQuantity = await required(without(omp, 'RXO', 11).join('\r'));
    expect(noQuantity.map((p) => [p.field, p.text])).toEqual([
      [
        'prescribedItems.0.quantity',
        'Item 1 quantity is required: the message has no value in RXO-11. Ask the sender to fill it, or type it in the preview.',
      ],
    ]);
    const overridden = await required(omp.join('\r'), { ...PROFILE, hl7FieldMap: { clinicOrderId: 'ZOR-1' } });
    expect(overridden.map((p) => p.text)).toEqual([
      "Clinic order id is required: the message has no value in ZOR-1, where the profile's field map reads it. Ask the sender to fill it, or type it in the preview.",
    ]);
  });
});

// The same source as one field of the message, for the MLLP ACK's ERR-2 (intake/ack-error-location.test.ts).
describe('requiredFieldPath', () => {
  const rde = 'MSH|^~\\&|A|B\rPID|1\rORC|NW|1\rRXE|1';
  const omp = 'MSH|^~\\&|A|B\rPID|1\rORC|NW|1\rRXO|1';
  it.each([
    ['customer.title', rde, 'PID-5.5'],
    ['customer.gender', rde, 'PID-8'],
    ['prescribingDoctor.prescriberName', rde, 'ORC-12'],
    ['clinicInformation.countryCode', rde, 'ORC-22.6'],
    ['prescribedItems.1.dosageInstructions', rde, 'RXE-7'],
    ['prescribedItems.0.quantity', omp, 'RXO-11'],
    // A delivery address is a PID-11 repetition of its own: which one is not known when it is missing.
    ['deliveryAddress.postCode', rde, 'PID-11'],
  ])('%s is read from %s', (field, hl7, path) => {
    expect(requiredFieldPath(field, hl7, undefined)).toBe(path);
  });

  it('names none where the field is read from one of several, or is not in HL7 at all', () => {
    expect(requiredFieldPath('clinicInformation.clinicCode', rde, undefined)).toBeUndefined();
    expect(requiredFieldPath('prescription.paymentType', rde, undefined)).toBeUndefined();
  });

  it("names the profile's own field where its field map reads one", () => {
    expect(requiredFieldPath('prescription.courierCode', rde, { courierCode: 'ZDL-1' })).toBe('ZDL-1');
    expect(requiredFieldPath('deliveryAddress.postCode', rde, { deliveryPostCode: 'ZDA-5.2' })).toBe('ZDA-5.2');
  });
});
