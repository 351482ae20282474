import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawMllpSocket, frame, parseAck, sendWithLibrary } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { buildAck, readMessageHeader } from './hl7-ack.js';
import type { IntakeRules } from './intake-service.js';
import { startMllpIntake, stopMllpIntake, type RunningIntake } from './testing/mllp-intake.js';

// Issue #17, the MLLP listener: an independent client (node-hl7-client, test/support/hl7-client.ts) sends single
// messages, bursts and malformed frames; each ACK is checked field by field; a resend is not staged twice.

const SENDER = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };

let running: RunningIntake | undefined;
afterEach(async () => {
  if (running) await stopMllpIntake(running);
  running = undefined;
});

async function start(
  rules: IntakeRules = { mode: 'hold' },
  extra: {
    allow?: string[];
    maxMessageBytes?: number;
    tls?: { certPath: string; keyPath: string; clientCaPath?: string };
  } = {},
): Promise<RunningIntake> {
  running = await startMllpIntake(rules, extra);
  return running;
}

/** A self-signed certificate and its key, `NAME.pem` and `NAME.key` in `dir` (openssl, as an admin makes one). */
function selfSigned(dir: string, name: string, commonName: string): { certPath: string; keyPath: string } {
  const certPath = join(dir, `${name}.pem`);
  const keyPath = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
    ],
    { stdio: 'ignore' },
  );
  return { certPath, keyPath };
}

let seq = 0;
function message(controlId = `CTL-${process.pid}-${++seq}`, order = uniqueOrder({}, 'MLLP')): string {
  return writeRde011(order, { controlId, timestamp: '20261126101500', ...SENDER });
}

function batchCount(r: RunningIntake): number {
  return (
    r.fixture.store.db.prepare('SELECT count(*) AS n FROM import_batches WHERE importing = 0').get() as { n: number }
  ).n;
}

/** Staged orders (messages staged): a sender's messages of a day share one batch. */
function stagedCount(r: RunningIntake): number {
  return (r.fixture.store.db.prepare('SELECT count(*) AS n FROM staged_orders').get() as { n: number }).n;
}

describe('MLLP intake', () => {
  it('acknowledges a valid message AA with its MSH mirrored, stages it once and answers a resend the same', async () => {
    const r = await start();
    const text = message('CTL-ONE');
    const [ack] = await sendWithLibrary(r.port, [text]);
    expect(ack!.get('MSA.1')).toBe('AA');
    expect(ack!.get('MSA.2')).toBe('CTL-ONE');
    // Sending and receiving application and facility swapped.
    expect(ack!.get('MSH.3')).toBe('CLOUDRX');
    expect(ack!.get('MSH.4')).toBe('PHARMACY');
    expect(ack!.get('MSH.5')).toBe('EPR-7');
    expect(ack!.get('MSH.6')).toBe('CLINIC-H');
    expect(ack!.get('MSH.9.1')).toBe('ACK');
    expect(ack!.get('MSH.9.2')).toBe('O11');
    expect(ack!.get('MSH.9.3')).toBe('ACK');
    expect(ack!.get('MSH.10')).not.toBe('CTL-ONE');
    expect(ack!.get('MSH.10')).not.toBe('');
    expect(ack!.get('MSH.11')).toBe('P');
    expect(ack!.get('MSH.12')).toBe('2.5');
    expect(ack!.errors).toEqual([]);
    await r.intake.staged(); // staging follows the ACK
    expect(batchCount(r)).toBe(1);
    const batch = r.fixture.staging.listBatches(LOCAL.id)[0]!;
    expect(batch.counts).toMatchObject({ valid: 1, invalid: 0 });
    expect(batch.summary?.profile).toBe('EPR'); // chosen by the sender, as for a file

    // The ACK was lost; the sender sends it again: the same answer, nothing staged twice.
    const [again] = await sendWithLibrary(r.port, [text]);
    expect(again!.text).toBe(ack!.text);
    await r.intake.staged(); // staging follows the ACK
    expect(batchCount(r)).toBe(1);
    expect(stagedCount(r)).toBe(1);
    const actions = r.fixture.store.audit
      .search({})
      .map((e) => e.action)
      .reverse();
    expect(actions.filter((a) => a.startsWith('intake.'))).toEqual(['intake.staged', 'intake.resent']);
    // Audit: peer, control id, outcome; never a patient field.
    const entry = r.fixture.store.audit.search({}).find((e) => e.action === 'intake.staged')!;
    expect(Object.keys(entry.details).sort()).toEqual(['controlId', 'outcome', 'peer', 'sender']);
    expect(entry.details).toMatchObject({ controlId: 'CTL-ONE', outcome: 'AA', sender: 'EPR-7^CLINIC-H' });
  });

  it('answers a resend with a new MSH-7 from the record, and refuses a different message under a used control id', async () => {
    const r = await start();
    const first = message('CTL-REUSED');
    const [ack] = await sendWithLibrary(r.port, [first]);
    expect(ack!.get('MSA.1')).toBe('AA');
    await r.intake.staged();
    // The same message again, stamped with another send time (MSH-7) and LF line ends: still a resend.
    const restamped = first.replace('|20261126101500|', '|20261126101933|').replaceAll('\r', '\n');
    expect(restamped).not.toBe(first);
    // A different order under the same id (a clinic system whose counter started again): refused, never dropped
    // unseen behind the first one's ACK.
    const other = message('CTL-REUSED');
    const raw = await RawMllpSocket.open(r.port);
    raw.write(frame(restamped));
    raw.write(frame(other));
    const [again, refused] = await raw.waitFor(2);
    raw.close();
    expect(again!.text).toBe(ack!.text);
    expect(refused!.get('MSA.1')).toBe('AR');
    expect(refused!.get('MSA.2')).toBe('CTL-REUSED');
    expect(refused!.errors.map((e) => e.code)).toEqual(['205']);
    expect(refused!.errors[0]!.text).toMatch(/^MSH-10 CTL-REUSED was used by another message from EPR-7\^CLINIC-H/);
    expect(['ERR.2.1', 'ERR.2.2', 'ERR.2.3'].map((path) => refused!.get(path))).toEqual(['MSH', '1', '10']);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(1);
    // Kept (its bytes, for whoever looks into it) and audited with its control id.
    const rows = r.fixture.store.db
      .prepare('SELECT control_id AS id, outcome FROM intake_messages ORDER BY rowid')
      .all();
    expect(rows).toEqual([
      { id: 'CTL-REUSED', outcome: 'AA' },
      { id: '', outcome: 'AR' },
    ]);
    const actions = r.fixture.store.audit
      .search({})
      .filter((e) => e.action.startsWith('intake.'))
      .map((e) => [e.action, e.details.controlId])
      .reverse();
    expect(actions).toEqual([
      ['intake.staged', 'CTL-REUSED'],
      ['intake.resent', 'CTL-REUSED'],
      ['intake.refused', 'CTL-REUSED'],
    ]);
  });

  it('answers a resend racing the first on another connection from its record, and refuses a different one racing it', async () => {
    const r = await start();
    const first = Buffer.from(message('CTL-RACE'));
    const other = Buffer.from(message('CTL-RACE'));
    // Handed over in one turn of the loop, as three connections' frames can be: each is being read when the next
    // comes (no record of the first yet, so the lookup of its control id finds nothing for any of them).
    const [answer, again, refused] = await Promise.all([
      r.intake.handle(first, '127.0.0.1:50001'),
      r.intake.handle(first, '127.0.0.1:50002'),
      r.intake.handle(other, '127.0.0.1:50003'),
    ]);
    expect(answer).toMatchObject({ code: 'AA', resent: false });
    expect(again).toMatchObject({ code: 'AA', resent: true, ack: answer.ack, recordId: answer.recordId });
    expect(refused).toMatchObject({ code: 'AR', resent: false });
    expect(parseAck(refused.ack).errors.map((e) => e.code)).toEqual(['205']);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(1);
    const actions = r.fixture.store.audit
      .search({})
      .filter((e) => e.action.startsWith('intake.'))
      .map((e) => `${e.action} ${String(e.details.peer)}`)
      .sort();
    expect(actions).toEqual([
      'intake.refused 127.0.0.1:50003',
      'intake.resent 127.0.0.1:50002',
      'intake.staged 127.0.0.1:50001',
    ]);
  });

  it('answers the messages read together even when one of them cannot be recorded', async () => {
    const r = await start();
    const record = r.intake.repo.record.bind(r.intake.repo);
    vi.spyOn(r.intake.repo, 'record').mockImplementation((row) => {
      if (row.controlId === 'CTL-DISK') throw new Error('disk I/O error');
      return record(row);
    });
    const [failed, answered] = await Promise.allSettled([
      r.intake.handle(Buffer.from(message('CTL-DISK')), '127.0.0.1:50001'),
      r.intake.handle(Buffer.from(message('CTL-FINE')), '127.0.0.1:50002'),
    ]);
    expect(failed).toMatchObject({ status: 'rejected', reason: { message: 'disk I/O error' } });
    expect(answered).toMatchObject({ status: 'fulfilled', value: { code: 'AA' } });
    await r.intake.staged();
    const rows = r.fixture.store.db.prepare('SELECT control_id AS id FROM intake_messages').all();
    expect(rows).toEqual([{ id: 'CTL-FINE' }]);
  });

  it('with "send valid orders as they arrive", queues a valid order at once; a person fixes the rest (AA)', async () => {
    const r = await start({ mode: 'send' });
    const bad = uniqueOrder({}, 'MLLP');
    (bad.homeAddress as { postCode: string }).postCode = 'NOT A POSTCODE';
    const acks = await sendWithLibrary(r.port, [message(), message(undefined, bad)]);
    expect(acks.map((a) => a.get('MSA.1'))).toEqual(['AA', 'AA']);
    await r.intake.staged(); // staging follows the ACK
    const queued = r.fixture.store.db.prepare("SELECT count(*) AS n FROM orders WHERE state = 'queued'").get() as {
      n: number;
    };
    expect(queued.n).toBe(1);
    const actions = r.fixture.store.audit
      .search({})
      .map((e) => e.action)
      .filter((a) => a.startsWith('intake.'));
    expect(actions).toEqual(['intake.accepted', 'intake.accepted']);
  });

  it('turns ORC-1 = CA into a cancel request, as a file import does (an unsent order is withdrawn)', async () => {
    const r = await start({ mode: 'send' });
    const order = uniqueOrder({}, 'MLLP');
    const cancel = writeRde011(order, {
      controlId: 'CTL-CA',
      orderControl: 'CA',
      timestamp: '20261126101600',
      ...SENDER,
    });
    const acks = await sendWithLibrary(r.port, [message('CTL-NW', order), cancel]);
    expect(acks.map((a) => [a.get('MSA.1'), a.get('MSA.2')])).toEqual([
      ['AA', 'CTL-NW'],
      ['AA', 'CTL-CA'],
    ]);
    await r.intake.staged();
    const row = r.fixture.store.db
      .prepare('SELECT state FROM orders WHERE clinic_order_id = ?')
      .get(order.prescription.clinicOrderId) as { state: string };
    expect(row.state).toBe('withdrawn');
  });

  it('holds a cancel that follows its order for review with it; accepting the day batch withdraws the order unsent', async () => {
    const r = await start({ mode: 'hold' });
    const order = uniqueOrder({}, 'MLLP');
    const cancel = writeRde011(order, { controlId: 'CTL-CA2', orderControl: 'CA', ...SENDER });
    const acks = await sendWithLibrary(r.port, [message('CTL-NW2', order)]);
    await r.intake.staged();
    // The cancel comes once its order is staged (not accepted: held for review), then another pair in one burst.
    const second = uniqueOrder({}, 'MLLP');
    acks.push(
      ...(await sendWithLibrary(r.port, [
        cancel,
        message('CTL-NW3', second),
        writeRde011(second, { controlId: 'CTL-CA3', orderControl: 'CA', ...SENDER }),
      ])),
    );
    expect(acks.map((a) => a.get('MSA.1'))).toEqual(['AA', 'AA', 'AA', 'AA']);
    await r.intake.staged();
    const batchId = r.intake.repo.find(LOCAL.id, 'EPR-7^CLINIC-H', 'CTL-CA2')!.batchId!;
    const staged = r.fixture.staging.getBatch(batchId, { limit: 10 }).orders;
    expect(staged.map((o) => [o.orderControl, o.valid])).toEqual([
      ['NW', true],
      ['CA', true],
      ['NW', true],
      ['CA', true],
    ]);
    expect(r.fixture.staging.accept(batchId)).toMatchObject({ accepted: 2, cancelled: 2, staying: 0 });
    const states = [order, second].map(
      (o) =>
        (
          r.fixture.store.db
            .prepare('SELECT state FROM orders WHERE clinic_order_id = ?')
            .get(o.prescription.clinicOrderId) as { state: string }
        ).state,
    );
    expect(states).toEqual(['withdrawn', 'withdrawn']);
  });

  it('accepts only the orders of the day batch the admin saw; those that arrive meanwhile stay for review', async () => {
    const r = await start({ mode: 'hold' });
    await sendWithLibrary(r.port, [message(), message()]);
    await r.intake.staged();
    const batchId = r.fixture.staging.listBatches(LOCAL.id)[0]!.id;
    const seen = r.fixture.staging.getBatch(batchId, { limit: 10 }).batch.counts.total;
    expect(seen).toBe(2);
    // A third message comes while the admin reviews the first two.
    await sendWithLibrary(r.port, [message()]);
    await r.intake.staged();
    expect(await r.fixture.staging.acceptAll(batchId, seen)).toMatchObject({ accepted: 2, staying: 1, arrived: 1 });
    const positions = r.fixture.staging.getBatch(batchId, { limit: 10 }).orders.map((o) => [o.position, o.state]);
    expect(positions).toEqual([
      [1, 'accepted'],
      [2, 'accepted'],
      [3, 'staged'],
    ]);
    // Reviewed in turn, it goes too.
    expect(await r.fixture.staging.acceptAll(batchId, 3)).toMatchObject({ accepted: 1, staying: 0 });
  });

  it('answers AE with an ERR per problem when the message can never be an order, AR when it cannot be read', async () => {
    const r = await start();
    const control = message('CTL-AE').replace('\rORC|NW|', '\rORC|XO|');
    const adt = message('CTL-ADT').replace('RDE^O11^RDE_O11', 'ADT^A01^ADT_A01');
    const v3 = message('CTL-V3').replace('|P|2.5', '|P|3.0');
    // The library (4.0) will not send a message of another version than its connection's: v3 goes on a raw socket.
    const acks = await sendWithLibrary(r.port, [control, adt]);
    const raw = await RawMllpSocket.open(r.port);
    raw.write(frame(v3));
    acks.push(...(await raw.waitFor(1)));
    raw.close();
    expect(acks[0]!.get('MSA.1')).toBe('AE');
    expect(acks[0]!.get('MSA.2')).toBe('CTL-AE');
    expect(acks[0]!.errors.length).toBeGreaterThan(0);
    expect(acks[0]!.errors.some((e) => /ORC-1|order control/i.test(e.text))).toBe(true);
    expect(acks[1]!.get('MSA.1')).toBe('AR');
    expect(acks[1]!.get('MSA.2')).toBe('CTL-ADT');
    expect(acks[1]!.get('MSH.9.2')).toBe('A01');
    expect(acks[1]!.errors[0]!.code).toBe('200');
    expect(acks[2]!.get('MSA.1')).toBe('AR');
    expect(acks[2]!.errors[0]!.code).toBe('203');
    expect(acks[2]!.get('MSH.12')).toBe('3.0');
  });

  it('answers AE to a message that is only its MSH (no patient, order or item), naming what it holds', async () => {
    const r = await start();
    const header = message('CTL-MSH').split('\r')[0]!;
    const [ack] = await sendWithLibrary(r.port, [header]);
    expect(ack!.get('MSA.1')).toBe('AE');
    expect(ack!.get('MSA.2')).toBe('CTL-MSH');
    expect(ack!.errors.map((e) => e.text)).toEqual([expect.stringMatching(/^Message 1 \(line 1\) holds only MSH: /)]);
  });

  it('accepts an RDE^O01 (HL7 v2.3, the name RDE^O11 had before 2.4) as an order: AA, staged', async () => {
    const r = await start();
    const v23 = message('CTL-V23').replace('RDE^O11^RDE_O11', 'RDE^O01').replace('|P|2.5', '|P|2.3');
    // The library will not send another version than its connection's: a raw socket.
    const raw = await RawMllpSocket.open(r.port);
    raw.write(frame(v23));
    const [ack] = await raw.waitFor(1);
    raw.close();
    expect(ack!.get('MSA.1')).toBe('AA');
    expect(ack!.get('MSA.2')).toBe('CTL-V23');
    expect(ack!.get('MSH.9.2')).toBe('O01');
    await r.intake.staged();
    expect(stagedCount(r)).toBe(1);
  });

  it('takes a burst over four connections, each message once', async () => {
    const r = await start({ mode: 'send' });
    const lots = Array.from({ length: 4 }, () => Array.from({ length: 15 }, () => message()));
    const results = await Promise.all(lots.map((msgs) => sendWithLibrary(r.port, msgs)));
    for (const [i, acks] of results.entries()) {
      expect(acks.map((a) => a.get('MSA.1'))).toEqual(Array(15).fill('AA'));
      expect(acks.map((a) => a.get('MSA.2'))).toEqual(lots[i]!.map((m) => m.split('|')[9]));
    }
    await r.intake.staged(); // staging follows the ACK
    expect(stagedCount(r)).toBe(60);
    expect(batchCount(r)).toBe(1); // one sender, one day
    const queued = r.fixture.store.db.prepare("SELECT count(*) AS n FROM orders WHERE state = 'queued'").get() as {
      n: number;
    };
    expect(queued.n).toBe(60);
  });

  it('reads frames split byte by byte, merged in one write, and skips garbage between them', async () => {
    const r = await start();
    const socket = await RawMllpSocket.open(r.port);
    const one = frame(message('CTL-SPLIT'));
    for (const byte of one) socket.write(Buffer.of(byte));
    await socket.waitFor(1);
    socket.write(
      Buffer.concat([
        Buffer.from('\r\nnoise\n'),
        frame(message('CTL-M1')),
        Buffer.from('xx'),
        frame(message('CTL-M2')),
      ]),
    );
    const acks = await socket.waitFor(3);
    expect(acks.map((a) => [a.get('MSA.1'), a.get('MSA.2')])).toEqual([
      ['AA', 'CTL-SPLIT'],
      ['AA', 'CTL-M1'],
      ['AA', 'CTL-M2'],
    ]);
    // A frame that is not HL7, and an unfinished frame followed by a new one (the first is dropped, unanswered).
    socket.write(frame('hello, this is not HL7'));
    socket.write(Buffer.concat([Buffer.of(0x0b), Buffer.from('MSH|^~\\&|half'), frame(message('CTL-AFTER'))]));
    const more = await socket.waitFor(5);
    expect(more[3]!.get('MSA.1')).toBe('AR');
    expect(more[3]!.get('MSA.2')).toBe('');
    expect(more[3]!.errors[0]!.code).toBe('100');
    expect([more[4]!.get('MSA.1'), more[4]!.get('MSA.2')]).toEqual(['AA', 'CTL-AFTER']);
    socket.close();
    await r.intake.staged(); // staging follows the ACK
    expect(stagedCount(r)).toBe(4);
    expect(batchCount(r)).toBe(1);
    expect(r.logs.join('\n')).not.toMatch(/Example|Alex|Test Street/); // no patient data in the log
  });

  it('refuses a message over the size limit (AR, connection closed) and a peer not in the allow-list', async () => {
    const r = await start({ mode: 'hold' }, { maxMessageBytes: 200 });
    const socket = await RawMllpSocket.open(r.port);
    socket.write(frame(message()));
    const [ack] = await socket.waitFor(1);
    expect(ack!.get('MSA.1')).toBe('AR');
    await socket.waitFor(2, 3000).catch(() => undefined);
    expect(socket.closed).toBe(true);
    expect(r.fixture.store.audit.search({ action: 'intake.frame.refused' })).toHaveLength(1);
    await r.listener.close();
    await r.intake.close();
    r.fixture.close();
    running = undefined;

    const s = await start({ mode: 'hold' }, { allow: ['10.9.9.9'] });
    const refused = await RawMllpSocket.open(s.port);
    refused.write(frame(message()));
    await refused.waitFor(1, 3000).catch(() => undefined);
    expect(refused.closed).toBe(true);
    expect(refused.acks).toEqual([]);
    expect(s.logs.filter((l) => l.includes('allow-list'))).toHaveLength(1);
    expect(s.listener.stats.refusedPeers).toBe(1);
    const refusedEntry = s.fixture.store.audit.search({ action: 'intake.peer.refused' });
    expect(refusedEntry).toHaveLength(1);
    expect(refusedEntry[0]!.details).toMatchObject({ outcome: 'peer', reason: 'allow-list' });
  });

  it('parses its own ACK escapes with the library', () => {
    const text = buildAck(readMessageHeader(message('CTL-ESC')), {
      code: 'AE',
      errors: [{ hl7Code: '207', text: 'a|b^c~d\\e&f' }],
    });
    expect(parseAck(text).errors).toEqual([{ code: '207', text: 'a|b^c~d\\e&f', location: '' }]);
  });

  it('speaks MLLP over TLS with a certificate and key given by path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rx-mllp-tls-'));
    try {
      const { certPath, keyPath } = selfSigned(dir, 'cert', 'localhost');
      const r = await start({ mode: 'hold' }, { tls: { certPath, keyPath } });
      const [ack] = await sendWithLibrary(r.port, [message('CTL-TLS')], {
        tls: { ca: readFileSync(certPath), servername: 'localhost' },
      });
      expect([ack!.get('MSA.1'), ack!.get('MSA.2')]).toEqual(['AA', 'CTL-TLS']);
      // Plain TCP to the TLS port: no answer.
      const plain = await RawMllpSocket.open(r.port);
      plain.write(frame(message('CTL-PLAIN')));
      await plain.waitFor(1, 2000).catch(() => undefined);
      expect(plain.acks).toEqual([]);
      plain.close();
      await r.intake.staged(); // staging follows the ACK
      expect(batchCount(r)).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with a client CA (mutual TLS) answers only peers whose certificate that CA issued', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rx-mllp-mtls-'));
    const file = (name: string) => join(dir, name);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
    try {
      selfSigned(dir, 'server', 'localhost');
      selfSigned(dir, 'ca', 'Clinic systems CA');
      selfSigned(dir, 'stranger', 'Not from the CA');
      openssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        file('clinic.key'),
        '-out',
        file('clinic.csr'),
        '-subj',
        '/CN=EPR-7',
      );
      openssl(
        'x509',
        '-req',
        '-in',
        file('clinic.csr'),
        '-CA',
        file('ca.pem'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-out',
        file('clinic.pem'),
        '-days',
        '1',
      );
      const r = await start(
        { mode: 'hold' },
        { tls: { certPath: file('server.pem'), keyPath: file('server.key'), clientCaPath: file('ca.pem') } },
      );
      const trustServer = { ca: readFileSync(file('server.pem')), servername: 'localhost' };
      const [ack] = await sendWithLibrary(r.port, [message('CTL-MTLS')], {
        tls: { ...trustServer, cert: readFileSync(file('clinic.pem')), key: readFileSync(file('clinic.key')) },
      });
      expect([ack!.get('MSA.1'), ack!.get('MSA.2')]).toEqual(['AA', 'CTL-MTLS']);

      /** A TLS peer that writes one message: whether an ACK came back before the connection ended. */
      const attempt = (client: { cert?: Buffer; key?: Buffer }) =>
        new Promise<'answered' | 'refused'>((resolve) => {
          const socket = tlsConnect({ port: r.port, host: '127.0.0.1', ...trustServer, ...client }, () =>
            socket.write(frame(message())),
          );
          socket.on('data', () => {
            socket.destroy();
            resolve('answered');
          });
          socket.on('error', () => resolve('refused'));
          socket.on('close', () => resolve('refused'));
        });
      expect(await attempt({})).toBe('refused');
      expect(await attempt({ cert: readFileSync(file('stranger.pem')), key: readFileSync(file('stranger.key')) })).toBe(
        'refused',
      );
      await r.intake.staged();
      expect(stagedCount(r)).toBe(1);
      // Both from 127.0.0.1: the first is said, the second counted into a run (finding 44) said when the listener
      // stops. Each names the peer, read as it connected: the socket of a refused handshake (a missing certificate,
      // the peer gone with ECONNRESET) has lost its address by then, and the entry said `peer: ":"`.
      await r.listener.close();
      const refused = () => r.fixture.store.audit.search({ action: 'intake.peer.refused' }).reverse();
      await vi.waitFor(() => expect(refused()).toHaveLength(2));
      // Each says the handshake failed, not that the peer was outside an allow-list (this listener has none).
      const [said, counted] = refused().map((entry) => entry.details);
      expect(said).toMatchObject({ outcome: 'peer', reason: 'tls' });
      expect(said?.peer).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(counted).toEqual({ peer: '127.0.0.1', outcome: 'peer', reason: 'tls', connectionCount: 1 });
      const tlsLines = r.logs.filter((line) => line.startsWith('intake: TLS handshake failed'));
      expect(tlsLines).toHaveLength(2);
      expect(tlsLines[0]).toMatch(/^intake: TLS handshake failed \{"peer":"127\.0\.0\.1:\d+","error":"[\w-]+"\}$/);
      expect(tlsLines[1]).toBe(
        'intake: TLS handshake failed: more connections refused {"peer":"127.0.0.1","connections":1}',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
