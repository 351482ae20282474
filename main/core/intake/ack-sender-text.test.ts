import { afterEach, describe, expect, it } from 'vitest';
import { parseAck, type ParsedAck } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import {
  HL7_PROFILE,
  stagingFixture,
  uniqueOrder,
  withField,
  type StagingFixture,
} from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { senderText } from './ack-text.js';
import { IntakeService } from './intake-service.js';

// ERR-8 goes to the clinic system's interface team, who can change only what their system sends. The importer words
// problems for the admin ("Ask the sender to fill it, or type it in the preview"; "choose one in the HL7 mapping
// profile (Import, …)"), and the ACK carried those words to the sender, telling them to ask themselves and to use
// screens they do not have. A payment type, courier or currency, which no HL7 order carries, was three ERRs
// "Required field missing" (101, severity E), as if the message were wrong.

const FOR_THE_ADMIN = /preview|profile|\bImport\b|import it again|Forward the HL7|Ask the sender|ask the sender/i;

describe('senderText', () => {
  it.each([
    [
      'Clinic name is required: the message has no value in ORC-21.1. Ask the sender to fill it, or give the field a constant in the mapping profile (one value for every order of this sender).',
      'Clinic name is required: the message has no value in ORC-21.1. Fill it.',
    ],
    [
      "Item 1 has 2 notes after it (NTE segment 12: 'OK'), which the order has no field for, so they are not sent. If they belong to the dosage, add them to the dosage instructions in the preview, or have the profile read the dosage from NTE-3.",
      "Item 1 has 2 notes after it (NTE segment 12: 'OK'), which the order has no field for, so they are not sent.",
    ],
    [
      'Message 1 (ORM^O01) is a lab order, not a pharmacy order. Ask the sender not to route these orders to the pharmacy; a prescription comes as RDE^O11 with RXE.',
      'Message 1 (ORM^O01) is a lab order, not a pharmacy order. Do not route these orders to the pharmacy; a prescription comes as RDE^O11 with RXE.',
    ],
    [
      "Gender 'X' is not one of the codes (e.g. Male); if the clinic means another, map 'X' in the mapping profile.",
      "Gender 'X' is not one of the codes (e.g. Male).",
    ],
    [
      'An order item carries one product, so they would not be sent; ask the sender to order the compound as one product, or send it another way.',
      'An order item carries one product, so they would not be sent; order the compound as one product, or send it another way.',
    ],
    // Nothing for the admin in it: unchanged.
    [
      "Postcode 'NOT A POSTCODE' is not a UK postcode (e.g. LS1 1AA) (PID-11.5).",
      "Postcode 'NOT A POSTCODE' is not a UK postcode (e.g. LS1 1AA) (PID-11.5).",
    ],
  ])('%s', (admin, sender) => {
    expect(senderText(admin, 'fallback')).toBe(sender);
  });

  it('falls back when every sentence is the admin’s', () => {
    expect(senderText('Choose the date format in the mapping profile.', 'Reviewed by the pharmacy.')).toBe(
      'Reviewed by the pharmacy.',
    );
  });
});

let fixture: StagingFixture | undefined;
let intake: IntakeService | undefined;
afterEach(async () => {
  await intake?.close();
  fixture?.close();
  fixture = intake = undefined;
});

function start(): IntakeService {
  fixture = stagingFixture();
  fixture.staging.saveProfile({
    ...HL7_PROFILE,
    name: 'EPR',
    hl7Sender: { application: 'EPR-7', facility: 'CLINIC-H', messageType: 'RDE^O11' },
  });
  intake = new IntakeService({ store: fixture.store, staging: fixture.staging, environmentId: LOCAL.id });
  return intake;
}

let sent = 0;
async function ackOf(text: string): Promise<ParsedAck> {
  sent += 1;
  const result = await intake!.handle(Buffer.from(text), `127.0.0.1:${5000 + sent}`);
  return parseAck(result.ack);
}

const message = (
  order = uniqueOrder({}, 'SNDR'),
  sender = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' },
) => writeRde011(order, { controlId: `SNDR-${(sent += 1)}`, ...sender });

/** Messages with one problem of each kind the importer words for the admin, as clinic systems send them. */
const BAD_MESSAGES: Array<[string, () => string]> = [
  ['a required field left out', () => message(withField(uniqueOrder({}, 'SNDR'), 'clinicInformation.name', undefined))],
  ['a title left out', () => message(withField(uniqueOrder({}, 'SNDR'), 'customer.title', undefined))],
  ['a quantity left out', () => message(withField(uniqueOrder({}, 'SNDR'), 'prescribedItems.0.quantity', undefined))],
  [
    'a postcode that is none',
    () => message(withField(uniqueOrder({}, 'SNDR'), 'homeAddress.postCode', 'NOT A POSTCODE')),
  ],
  ['a short dm+d code', () => message(uniqueOrder({ dmdCode: '123' }, 'SNDR'))],
  [
    'a prescriber number that is none',
    () => message(withField(uniqueOrder({}, 'SNDR'), 'prescribingDoctor.registrationNumber', '1')),
  ],
  ['a control character', () => message().replace('|Example^', '|Exa\\X07\\mple^')],
  [
    'the dosage in a note',
    () =>
      message(withField(uniqueOrder({}, 'SNDR'), 'prescribedItems.0.dosageInstructions', undefined)).replace(
        /(\rRXE[^\r]*)/,
        '$1\rNTE|1||Take one daily',
      ),
  ],
  ['a compound item', () => message().replace(/(\rRXE[^\r]*)/, '$1\rRXC|A|3456789^Lidocaine 1%^DMD|5|ml')],
  ['no ORC-2', () => message().replace(/(\rORC\|[^|\r]*)\|[^|\r]*/, '$1|')],
  [
    'a lab order',
    () =>
      message()
        .replace(/RDE\^O11(\^RDE_O11)?/, 'ORM^O01')
        .replace(/\rRXE[^\r]*/, '\rOBR|1|||CBC^Blood count'),
  ],
];

describe('the ACK speaks to the sender', () => {
  it.each(BAD_MESSAGES)('%s: every ERR-8 is about the message, none about Rx Batch’s screens', async (_, make) => {
    start();
    const ack = await ackOf(make());
    expect(ack.errors.length).toBeGreaterThan(0);
    for (const error of ack.errors) {
      expect(error.text).not.toMatch(FOR_THE_ADMIN);
      expect(error.text.trim()).not.toBe('');
    }
  });

  it('says once, as a warning of the pharmacy’s settings, what the sender’s profile does not give', async () => {
    start();
    // A sender no profile names: no payment type, courier or currency come with its orders.
    const ack = await ackOf(
      message(uniqueOrder({}, 'SNDR'), { sendingApplication: 'EPR-9', sendingFacility: 'CLINIC-Z' }),
    );
    expect(ack.get('MSA.1')).toBe('AA');
    const settings = ack.errors.filter((error) => error.code === '207');
    expect(settings).toHaveLength(1);
    expect(settings[0]!.text).toContain('settings for EPR-9^CLINIC-Z give no payment type, courier or currency');
    expect(settings[0]!.text).toContain('Nothing in this message needs to change.');
    expect(settings[0]!.location).toBe('');
    expect(
      ack.text
        .split('\r')
        .find((segment) => segment.startsWith('ERR') && segment.includes('|207^'))!
        .split('|')[4],
    ).toBe('W');
    for (const field of ['paymentType', 'courierCode', 'currencyCode']) {
      expect(ack.errors.some((error) => error.text.includes(field))).toBe(false);
    }
    // The admin still sees each one, with what fixes it, on the staged order.
    await intake!.staged();
    const [batch] = fixture!.staging.listBatches(LOCAL.id);
    const [order] = fixture!.store.stagedOrders.after(batch!.id, 0, 1);
    const texts = order!.problems.map((problem) => problem.text).join('\n');
    expect(texts).toContain('choose one for "Payment type" in the HL7 mapping profile');
  });
});
