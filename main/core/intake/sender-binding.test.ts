import { afterEach, describe, expect, it } from 'vitest';
import { RawMllpSocket, frame, sendWithLibrary, type ParsedAck } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { HL7_PROFILE, stagingFixture, uniqueOrder, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { IntakeService, type IntakeRules } from './intake-service.js';
import { MllpListener } from './mllp-listener.js';

// docs/security.md finding 27: a sender is whatever its MSH-3/MSH-4 say, so a profile binds its sender to the peers
// its messages may come from (`peers`) and the clinics it may act for (`clinics`). Through the real MLLP listener,
// answered to an independent client (node-hl7-client's), a real store; under `send`, so anything acted on would be
// queued for the outbox at once.

const A = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };
const B = { sendingApplication: 'EPR-9', sendingFacility: 'CLINIC-K' };
type Sender = typeof A;
type Order = ReturnType<typeof uniqueOrder>;

interface Running {
  fixture: StagingFixture;
  intake: IntakeService;
  port: number;
}

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

const profileFor = (name: string, sender: Sender, binding: Pick<MappingProfile, 'clinics' | 'peers'>) => ({
  ...HL7_PROFILE,
  name,
  hl7Sender: { application: sender.sendingApplication, facility: sender.sendingFacility, messageType: 'RDE^O11' },
  ...binding,
});

async function start(
  bindings: { a?: Pick<MappingProfile, 'clinics' | 'peers'>; b?: Pick<MappingProfile, 'clinics' | 'peers'> },
  options: { host?: string; rules?: IntakeRules } = {},
): Promise<Running> {
  const fixture = stagingFixture();
  fixture.staging.saveProfile(profileFor('EPR-A', A, bindings.a ?? {}));
  fixture.staging.saveProfile(profileFor('EPR-B', B, bindings.b ?? {}));
  const intake = new IntakeService({
    store: fixture.store,
    staging: fixture.staging,
    environmentId: LOCAL.id,
    rules: options.rules ?? { mode: 'send' },
  });
  const listener = new MllpListener({
    port: 0,
    ...(options.host ? { host: options.host } : {}),
    handle: (raw, peer) => intake.handle(raw, peer),
  });
  const { port } = await listener.listen();
  opened.push(async () => {
    await listener.close();
    await intake.close();
    fixture.close();
  });
  return { fixture, intake, port };
}

let seq = 0;
const nw = (order: Order, sender: Sender, controlId = `NW-${++seq}`) => writeRde011(order, { controlId, ...sender });
const ca = (order: Order, sender: Sender, controlId = `CA-${++seq}`) =>
  writeRde011(order, { controlId, orderControl: 'CA', ...sender });

/** Sends from `from` (an address of this computer), one message at a time, on a raw socket read by the library. */
async function sendFrom(r: Running, from: string, messages: string[], host = '127.0.0.1'): Promise<ParsedAck[]> {
  const socket = await RawMllpSocket.open(r.port, host, from);
  try {
    for (let i = 0; i < messages.length; i += 1) {
      socket.write(frame(messages[i]!));
      await socket.waitFor(i + 1);
    }
    return [...socket.acks];
  } finally {
    socket.close();
    await r.intake.staged();
  }
}

function ordersOf(r: Running): Array<{ clinic_order_id: string; state: string }> {
  return r.fixture.store.db.prepare('SELECT clinic_order_id, state FROM orders ORDER BY id').all() as Array<{
    clinic_order_id: string;
    state: string;
  }>;
}

function stagedOf(r: Running, sender: string, controlId: string) {
  const row = r.intake.repo.find(LOCAL.id, sender, controlId);
  if (!row?.batchId) return [];
  return r.fixture.staging
    .getBatch(row.batchId, { limit: 50 })
    .orders.map((o) => ({ control: o.orderControl, state: o.state, problems: o.problems.map((p) => p.code) }));
}

/** The ACK with its own MSH-7 (time) and MSH-10 (control id) blanked, and MSA-2 (the message's): what may differ. */
function withoutIds(ack: string): string {
  const [msh, msa, ...rest] = ack.split('\r');
  const fields = msh!.split('|');
  fields[6] = '';
  fields[9] = '';
  const msaFields = msa!.split('|');
  msaFields[2] = '';
  return [fields.join('|'), msaFields.join('|'), ...rest].join('\r');
}

describe('a sender bound to its peers', () => {
  it('answers a message claiming a bound sender from another address AR, stages nothing, and audits it', async () => {
    // A's system is at 127.0.0.2; a system at 127.0.0.1 writes A's name to cancel A's order (finding 22 defeated).
    const r = await start({ a: { peers: ['127.0.0.2'] } });
    const order = uniqueOrder({}, 'PEER');
    const [own] = await sendFrom(r, '127.0.0.2', [nw(order, A)]);
    expect(own!.get('MSA.1')).toBe('AA');
    expect(ordersOf(r)).toEqual([{ clinic_order_id: order.prescription.clinicOrderId, state: 'queued' }]);
    const batches = r.fixture.store.db.prepare('SELECT COUNT(*) AS n FROM import_batches').get() as { n: number };

    const [spoofed] = await sendFrom(r, '127.0.0.1', [ca(order, A, 'SPOOF-1')]);
    expect(spoofed!.get('MSA.1')).toBe('AR');
    expect(spoofed!.get('MSA.2')).toBe('SPOOF-1');
    expect(spoofed!.errors).toEqual([
      {
        code: '207',
        location: 'MSH^1^3',
        text:
          'EPR-7^CLINIC-H is not accepted from this address (127.0.0.1): the message was not read or staged. ' +
          "Send it from the sender's own system, or ask the pharmacy to add this address to the sender's profile.",
      },
    ]);
    expect(spoofed!.text).not.toContain(order.prescription.clinicOrderId);
    // Nothing staged, nothing cancelled: the order is still queued, no batch was made, no cancel asked for.
    expect(ordersOf(r)).toEqual([{ clinic_order_id: order.prescription.clinicOrderId, state: 'queued' }]);
    expect(r.fixture.store.db.prepare('SELECT COUNT(*) AS n FROM import_batches').get()).toEqual(batches);
    expect(r.fixture.store.db.prepare('SELECT COUNT(*) AS n FROM cancellations').get()).toEqual({ n: 0 });
    const refused = r.fixture.store.audit.search({ action: 'intake.sender.refused' });
    expect(refused.map((entry) => entry.details.peer)).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
    expect(refused.map(({ details: { peer: _peer, ...rest } }) => rest)).toEqual([
      {
        controlId: 'SPOOF-1',
        sender: 'EPR-7^CLINIC-H',
        outcome: 'AR',
        invalidCount: 1,
      },
    ]);
    // Recorded without its control id: the sender's own next message under SPOOF-1 is not refused as a reuse.
    const [later] = await sendFrom(r, '127.0.0.2', [ca(order, A, 'SPOOF-1')]);
    expect(later!.get('MSA.1')).toBe('AA');
    expect(ordersOf(r)[0]!.state).not.toBe('queued');
  });

  it('matches CIDR blocks, IPv4-mapped IPv6 addresses either way round, and any message type of the sender', async () => {
    const order = uniqueOrder({}, 'CIDR');
    // A block that holds 127.0.0.2 but not 127.0.0.1.
    const block = await start({ a: { peers: ['127.0.0.2/31'] } });
    expect((await sendFrom(block, '127.0.0.2', [nw(uniqueOrder({}, 'CIDR'), A)]))[0]!.get('MSA.1')).toBe('AA');
    expect((await sendFrom(block, '127.0.0.3', [nw(uniqueOrder({}, 'CIDR'), A)]))[0]!.get('MSA.1')).toBe('AA');
    expect((await sendFrom(block, '127.0.0.1', [nw(order, A)]))[0]!.get('MSA.1')).toBe('AR');
    // Another message type of the same sender, which no profile is for, is bound all the same.
    const orm = nw(order, A).replace('|RDE^O11^RDE_O11|', '|ORM^O01^ORM_O01|');
    expect(orm).toContain('|ORM^O01^ORM_O01|');
    expect((await sendFrom(block, '127.0.0.1', [orm]))[0]!.get('MSA.1')).toBe('AR');
    // The sender's name in other case is the same sender to the binding.
    const lower = { sendingApplication: 'epr-7', sendingFacility: 'clinic-h' };
    expect((await sendFrom(block, '127.0.0.1', [nw(order, lower)]))[0]!.get('MSA.1')).toBe('AR');

    // A dual-stack listener sees IPv4 peers as ::ffff:127.0.0.x: an IPv4 rule matches them, an IPv6 peer does not.
    const dual = await start({ a: { peers: ['127.0.0.0/8'] } }, { host: '::' });
    expect((await sendFrom(dual, '127.0.0.1', [nw(uniqueOrder({}, 'CIDR'), A)]))[0]!.get('MSA.1')).toBe('AA');
    expect((await sendFrom(dual, '::1', [nw(uniqueOrder({}, 'CIDR'), A)], '::1'))[0]!.get('MSA.1')).toBe('AR');
    // A rule written as an IPv4-mapped address or block matches the IPv4 peer.
    const mapped = await start({ a: { peers: ['::ffff:127.0.0.2'] }, b: { peers: ['::ffff:127.0.0.0/104'] } });
    expect((await sendFrom(mapped, '127.0.0.2', [nw(uniqueOrder({}, 'CIDR'), A)]))[0]!.get('MSA.1')).toBe('AA');
    expect((await sendFrom(mapped, '127.0.0.1', [nw(uniqueOrder({}, 'CIDR'), A)]))[0]!.get('MSA.1')).toBe('AR');
    expect((await sendFrom(mapped, '127.0.0.9', [nw(uniqueOrder({}, 'CIDR'), B)]))[0]!.get('MSA.1')).toBe('AA');
  });

  it('refuses a bound sender’s resend or reused control id from another address before answering from its record', async () => {
    const r = await start({ a: { peers: ['127.0.0.2'] } });
    const message = nw(uniqueOrder({}, 'PEEK'), A, 'PEEK-1');
    const [own] = await sendFrom(r, '127.0.0.2', [message]);
    expect(own!.get('MSA.1')).toBe('AA');

    // The sender's exact message again, and another message under its control id, from an address it is not bound
    // to: both refused as from the wrong address, neither answered from the record (its ACK, "MSH-10 was used by
    // another message … received …"), so a spoofer learns neither what the sender sent nor when.
    const other = nw(uniqueOrder({}, 'PEEK'), A, 'PEEK-1');
    const answers = await sendFrom(r, '127.0.0.1', [message, other]);
    for (const ack of answers) {
      expect(ack.get('MSA.1')).toBe('AR');
      expect(ack.get('MSA.2')).toBe('PEEK-1');
      expect(ack.errors.map((error) => error.code)).toEqual(['207']);
      expect(ack.errors[0]!.text).toContain('is not accepted from this address (127.0.0.1)');
    }
    expect(r.fixture.store.audit.search({ action: 'intake.resent' })).toEqual([]);
    expect(r.fixture.store.audit.search({ action: 'intake.sender.refused' })).toHaveLength(2);
    // The sender's own resend is still answered from its record.
    const [again] = await sendFrom(r, '127.0.0.2', [message]);
    expect(again!.get('MSA.1')).toBe('AA');
    expect(r.fixture.store.audit.search({ action: 'intake.resent' })).toHaveLength(1);
  });

  it('leaves an unbound sender as before: any peer', async () => {
    const r = await start({ a: { peers: ['127.0.0.2'] } });
    const [ack] = await sendWithLibrary(r.port, [nw(uniqueOrder({}, 'FREE'), B)]);
    await r.intake.staged();
    expect(ack!.get('MSA.1')).toBe('AA');
    expect(ordersOf(r).map((o) => o.state)).toEqual(['queued']);
  });
});

describe('a sender bound to its clinics', () => {
  it('stages an order for another clinic for review, answers AE, and sends nothing under `send`', async () => {
    const r = await start({ a: { clinics: ['CLINIC-A'] } });
    const foreign = uniqueOrder({ clinicCode: 'CLINIC-B' }, 'FOREIGN');
    const [ack] = await sendWithLibrary(r.port, [nw(foreign, A, 'FOREIGN-1')]);
    await r.intake.staged();
    expect(ack!.get('MSA.1')).toBe('AE');
    expect(ack!.errors).toEqual([
      {
        code: '207',
        location: '',
        text:
          `ORC-1 NW for order '${foreign.prescription.clinicOrderId}' of clinic 'CLINIC-B' was not acted on: ` +
          "EPR-7^CLINIC-H may not order or cancel for that clinic here. It waits for the pharmacy's review.",
      },
    ]);
    expect(ordersOf(r)).toEqual([]);
    expect(stagedOf(r, 'EPR-7^CLINIC-H', 'FOREIGN-1')).toEqual([
      { control: 'NW', state: 'staged', problems: ['intake.clinicNotBound'] },
    ]);
    const row = r.intake.repo.find(LOCAL.id, 'EPR-7^CLINIC-H', 'FOREIGN-1')!;
    const [problem] = r.fixture.staging.getBatch(row.batchId!, { limit: 5 }).orders[0]!.problems;
    expect(problem!.text).toContain("Clinic 'CLINIC-B' is not one of the clinics EPR-7^CLINIC-H's profile 'EPR-A'");
    expect(problem!.text).toContain('(CLINIC-A)');

    // Its own clinic's order goes as before; a cancel for the other clinic is not acted on either.
    const own = uniqueOrder({ clinicCode: 'CLINIC-A' }, 'OWN');
    const [ownAck] = await sendWithLibrary(r.port, [nw(own, A)]);
    await r.intake.staged();
    expect(ownAck!.get('MSA.1')).toBe('AA');
    expect(ordersOf(r)).toEqual([{ clinic_order_id: own.prescription.clinicOrderId, state: 'queued' }]);
    const [cancelAck] = await sendWithLibrary(r.port, [ca(foreign, A)]);
    await r.intake.staged();
    expect(cancelAck!.get('MSA.1')).toBe('AE');
    expect(cancelAck!.errors.map((e) => e.text)).toEqual([
      `ORC-1 CA for order '${foreign.prescription.clinicOrderId}' of clinic 'CLINIC-B' was not acted on: ` +
        "EPR-7^CLINIC-H may not order or cancel for that clinic here. It waits for the pharmacy's review.",
    ]);
    expect(ordersOf(r)).toEqual([{ clinic_order_id: own.prescription.clinicOrderId, state: 'queued' }]);
  });

  it('cannot cancel another clinic’s order even when it writes that clinic’s sender name from its own peer', async () => {
    // B's system (bound to CLINIC-K's clinic and 127.0.0.2) has an order queued; A, bound to CLINIC-A, cancels it
    // in its own name: held, AE, the order still queued.
    const r = await start({ a: { clinics: ['CLINIC-A'] }, b: { clinics: ['CLINIC-K'], peers: ['127.0.0.2'] } });
    const order = uniqueOrder({ clinicCode: 'CLINIC-K' }, 'BORDER');
    expect((await sendFrom(r, '127.0.0.2', [nw(order, B)]))[0]!.get('MSA.1')).toBe('AA');
    expect((await sendFrom(r, '127.0.0.1', [ca(order, A)]))[0]!.get('MSA.1')).toBe('AE');
    expect((await sendFrom(r, '127.0.0.1', [ca(order, B)]))[0]!.get('MSA.1')).toBe('AR');
    expect(ordersOf(r)).toEqual([{ clinic_order_id: order.prescription.clinicOrderId, state: 'queued' }]);
  });

  it('answers a new order probing another clinic’s known order id exactly as one with an unknown id', async () => {
    // CLINIC-B's order is known (sent by B); A, bound to CLINIC-A, sends an NW with that identity, and one with an
    // identity nobody used. Unbound, the first was answered ERR 102 order.alreadyKnown: an existence oracle.
    const r = await start({ a: { clinics: ['CLINIC-A'] } });
    const known = uniqueOrder({ clinicCode: 'CLINIC-B' }, 'KNOWN');
    expect((await sendWithLibrary(r.port, [nw(known, B)]))[0]!.get('MSA.1')).toBe('AA');
    await r.intake.staged();
    expect(ordersOf(r).map((o) => o.state)).toEqual(['queued']);
    const unknown = { ...known, prescription: { ...known.prescription, clinicOrderId: 'NEVER-USED-1' } };
    const [first] = await sendWithLibrary(r.port, [writeRde011(known, { controlId: 'PROBE-K', ...A })]);
    const [second] = await sendWithLibrary(r.port, [writeRde011(unknown, { controlId: 'PROBE-U', ...A })]);
    await r.intake.staged();
    expect(first!.get('MSA.1')).toBe('AE');
    const id = (text: string) =>
      withoutIds(text).replaceAll(known.prescription.clinicOrderId, 'ID').replaceAll('NEVER-USED-1', 'ID');
    expect(id(first!.text)).toEqual(id(second!.text));
    expect(first!.text).not.toContain('102^');
    // The admin still sees that the first was already known.
    expect(stagedOf(r, 'EPR-7^CLINIC-H', 'PROBE-K')[0]?.problems).toContain('order.alreadyKnown');
    expect(ordersOf(r).map((o) => o.state)).toEqual(['queued']);
  });

  it('answers an NW with a known id of its own clinic as before (its own data)', async () => {
    const r = await start({ a: { clinics: ['CLINIC-A'] } });
    const order = uniqueOrder({ clinicCode: 'CLINIC-A' }, 'MINE');
    await sendWithLibrary(r.port, [nw(order, A)]);
    await r.intake.staged();
    const [again] = await sendWithLibrary(r.port, [nw(order, A)]);
    await r.intake.staged();
    expect(again!.errors.map((e) => e.code)).toEqual(['102']);
  });
});
