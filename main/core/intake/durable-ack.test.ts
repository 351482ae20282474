import type * as NodeFs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { HL7_PROFILE, stagingFixture, uniqueOrder, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { IntakeService } from './intake-service.js';
import { MllpListener } from './mllp-listener.js';

// Issue #17: no ACK byte is written before its message's commit is fsync'd, and messages arriving together share
// one fsync. The WAL fsync GroupCommit runs on the thread pool (node:fs `fsync`) is held here until the test lets
// it go, so "ACK before fsync" would show as an ACK arriving while it is held.

const gate = vi.hoisted(() => ({
  holding: false,
  calls: 0,
  held: [] as Array<() => void>,
  release() {
    gate.holding = false;
    for (const run of gate.held.splice(0)) run();
  },
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof NodeFs>();
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    gate.calls += 1;
    const run = () => fs.fsync(fd, callback);
    if (gate.holding) gate.held.push(run);
    else run();
  };
  return { ...fs, default: { ...fs, fsync }, fsync };
});

const SENDER = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };
const message = (controlId: string) =>
  writeRde011(uniqueOrder({}, 'DUR'), { controlId, timestamp: '20261126101500', ...SENDER });

let fixture: StagingFixture | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  gate.release();
  await close?.();
  fixture?.close();
  fixture = close = undefined;
});

async function start(mode: 'send' | 'hold') {
  fixture = stagingFixture();
  fixture.staging.saveProfile({
    ...HL7_PROFILE,
    name: 'EPR',
    hl7Sender: { application: 'EPR-7', facility: 'CLINIC-H', messageType: 'RDE^O11' },
  });
  const intake = new IntakeService({
    store: fixture.store,
    staging: fixture.staging,
    environmentId: LOCAL.id,
    rules: { mode },
  });
  const listener = new MllpListener({ port: 0, handle: (raw, peer) => intake.handle(raw, peer) });
  const { port } = await listener.listen();
  close = async () => {
    await listener.close();
    await intake.close();
  };
  return { port, store: fixture.store, intake };
}

const rows = (f: { store: StagingFixture['store'] }) =>
  (f.store.db.prepare('SELECT count(*) AS n FROM intake_messages').get() as { n: number }).n;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('durable before ACK', () => {
  it('writes no ACK while the fsync covering its message is held, and one fsync covers messages that came meanwhile', async () => {
    const running = await start('send');
    // A first message, so the WAL file exists and GroupCommit syncs it on the thread pool.
    const warm = await RawMllpSocket.open(running.port);
    warm.write(frame(message('DUR-0')));
    await warm.waitFor(1);
    warm.close();

    gate.holding = true;
    gate.calls = 0;
    const first = await RawMllpSocket.open(running.port);
    first.write(frame(message('DUR-1')));
    await vi.waitFor(() => expect(gate.calls).toBe(1));
    // Committed (the row and its staged, queued order are there) but not yet on disk: no ACK.
    expect(rows(running)).toBe(2);
    await wait(300);
    expect(first.acks).toEqual([]);

    // Three more senders while that fsync is held: each commits, none is answered.
    const others = await Promise.all([2, 3, 4].map(() => RawMllpSocket.open(running.port)));
    others.forEach((socket, i) => socket.write(frame(message(`DUR-${i + 2}`))));
    await vi.waitFor(() => expect(rows(running)).toBe(5));
    await wait(300);
    expect(others.map((socket) => socket.acks.length)).toEqual([0, 0, 0]);
    expect(gate.calls).toBe(1);

    // The first fsync ends: its message is answered; the three wait for the next fsync, which covers all three.
    gate.holding = false;
    gate.held.shift()!();
    const [ack1] = await first.waitFor(1);
    expect([ack1!.get('MSA.1'), ack1!.get('MSA.2')]).toEqual(['AA', 'DUR-1']);
    await vi.waitFor(() => expect(gate.calls).toBe(2));
    const acks = await Promise.all(others.map((socket) => socket.waitFor(1)));
    expect(acks.map(([ack]) => ack!.get('MSA.2'))).toEqual(['DUR-2', 'DUR-3', 'DUR-4']);
    expect(gate.calls).toBe(2); // four messages, two fsyncs
    for (const socket of [first, ...others]) socket.close();
    await running.intake.staged(); // staging follows the ACK
    const queued = running.store.db.prepare("SELECT count(*) AS n FROM orders WHERE state = 'queued'").get() as {
      n: number;
    };
    expect(queued.n).toBe(5);
  });

  it('answers a resend only once the original it is answered from is durable', async () => {
    const running = await start('hold');
    const warm = await RawMllpSocket.open(running.port);
    warm.write(frame(message('DUR-W')));
    await warm.waitFor(1);
    warm.close();

    gate.holding = true;
    const original = await RawMllpSocket.open(running.port);
    const text = message('DUR-R');
    original.write(frame(text));
    await vi.waitFor(() => expect(rows(running)).toBe(2));
    // The sender gave up on that connection and resends on another: the row is found, but not yet durable.
    const resend = await RawMllpSocket.open(running.port);
    resend.write(frame(text));
    await wait(300);
    expect(resend.acks).toEqual([]);
    gate.release();
    const [again] = await resend.waitFor(1);
    const [ack] = await original.waitFor(1);
    expect(again!.text).toBe(ack!.text);
    expect(rows(running)).toBe(2); // not recorded (nor staged) twice
    original.close();
    resend.close();
  });
});
