import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRde011 } from '../../main/core/importing/rde-writer.js';
import { openStore } from '../../main/core/store/store.js';
import { uniqueOrder } from '../../main/core/staging/testing/staging-fixtures.js';
import { envAddArgs, finished, runCli, startCli } from '../../main/cli/testing/run-cli-process.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { RawMllpSocket, frame } from '../support/hl7-client.js';
import { removeDir, tempDataDir } from '../outbox/support/outbox-fixture.js';

/**
 * Issue #17's crash test: `rx-batch serve` (a real child process, "send valid orders as they arrive") takes a
 * stream of 1,000 HL7 messages on 3 concurrent connections, each an MLLP sender that sends one message at a time,
 * waits for its ACK and resends whatever was not acknowledged first on its next connection. `serve` is SIGKILLed
 * 11 times and restarted. Ten kills aim at a random place in each tenth of the stream, of these kinds, shuffled:
 * five after a random wall-clock delay from the connections opening (not tied to any frame or ACK, so they land
 * anywhere: reading a frame, between a row's commit and its fsync or ACK, in the staging that follows, during
 * the outbox's sends), one after some number of ACKs, two right after a frame was written (before its ACK), one
 * with half a frame written, one after an ACK the sender then drops (its resend must get the stored ACK, nothing
 * staged again). The eleventh comes after the last ACK, while the outbox is still sending. Every message ACKed AA
 * must be staged exactly once (accepted once in the audit) and created at the sandbox exactly once; none is lost;
 * the audit chain verifies. ~45 s on a busy 2-core machine, most of it the 12 starts of node + tsx (~1 s each).
 */

const MESSAGES = 1000;
const LANES = 3;
const ENV = 'sbx';
type KillMode = 'time' | 'acks' | 'before-ack' | 'mid-frame' | 'lost-ack';
/** The kills during the stream: half of them by wall-clock time, each other kind at least once. */
const STREAM_KILLS: KillMode[] = [
  ...Array<KillMode>(5).fill('time'),
  'acks',
  'before-ack',
  'before-ack',
  'mid-frame',
  'lost-ack',
];

let sandbox: RunningSandbox;
const dataDir = tempDataDir('rx-intake-crash-');
const data = join(dataDir, 'data');
const children = new Set<ChildProcess>();

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000, faults: { latencyMs: 4 } });
  const added = await runCli([...envAddArgs(ENV, sandbox), '--data-dir', data]);
  expect(added.code).toBe(0);
  const profile = await runCli([
    'profile',
    'add-hl7',
    'EPR',
    '--sender',
    'EPR-7^CLINIC-H',
    '--set',
    'prescription.paymentType=Account',
    '--set',
    'prescription.courierCode=RMT24',
    '--set',
    'prescription.currencyCode=GBP',
    '--data-dir',
    data,
  ]);
  expect(profile).toMatchObject({ code: 0 });
  // The settings screen's fastest pace (the CLI has no option for it): at the default 5 requests a second the
  // outbox alone would take 200 s for 1,000 orders.
  const store = openStore({ dataDir: data });
  try {
    store.environments.upsert({ ...store.environments.get(ENV)!, concurrency: 8, ratePerSecond: 100 });
  } finally {
    store.close();
  }
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await sandbox?.close();
  removeDir(dataDir);
});

interface Serve {
  child: ChildProcess;
  port: Promise<number>;
  done: ReturnType<typeof finished>;
  /** Its standard output so far. */
  output(): string;
}

function startServe(): Serve {
  const child = startCli([
    'serve',
    '--env',
    ENV,
    '--mllp',
    '127.0.0.1:0',
    '--on-arrival',
    'send',
    '--progress-seconds',
    '1',
    '--data-dir',
    data,
  ]);
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const port = new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^mllp: 127\.0\.0\.1:(\d+)$/m.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`serve exited before it was ready: ${err}`)));
  });
  port.catch(() => undefined);
  return { child, port, done: finished(child, 120_000), output: () => out };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

interface Message {
  controlId: string;
  clinicOrderId: string;
  bytes: Buffer;
}

/** One sender's connection slot: the message it sent and has no ACK for yet is sent again first. */
interface Lane {
  pending: Message | undefined;
}

/** What one connection period asks of the senders: one of them to stop half-way or to drop an ACK. */
interface Trap {
  kind: 'before-ack' | 'mid-frame' | 'lost-ack';
  /** Sprung by the first sender to act once this many messages were ACKed. */
  afterAcks: number;
  sprung: boolean;
  spring(): void;
  wait: Promise<void>;
}

function trap(kind: Trap['kind'], afterAcks: number): Trap {
  let spring!: () => void;
  const wait = new Promise<void>((resolve) => (spring = resolve));
  return { kind, afterAcks, sprung: false, spring, wait };
}

describe('serve, killed at random moments', () => {
  it('stages and creates every message ACKed AA exactly once; the senders resend the rest', async () => {
    const messages: Message[] = Array.from({ length: MESSAGES }, (_, i) => {
      const order = uniqueOrder({}, 'ICR');
      const controlId = `ICR-${i + 1}`;
      const text = writeRde011(order, { controlId, sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' });
      return { controlId, clinicOrderId: order.prescription.clinicOrderId, bytes: frame(text) };
    });
    const ids = new Set(messages.map((m) => m.clinicOrderId));
    const acked = new Map<string, string>();
    const droppedAcks = new Set<string>();
    const lanes: Lane[] = Array.from({ length: LANES }, () => ({ pending: undefined }));
    let taken = 0;
    let resends = 0;
    const ackedCount = () => acked.size;
    /** How fast ACKs come once connections are open (connecting and the process starting not counted). */
    const ackRate = {
      ms: 0,
      acks: 0,
      last: 0,
      lastPeriod: -1,
      msPerAck(): number {
        return this.acks > 20 ? this.ms / this.acks : 3;
      },
      /** An ACK, in connection period `period` (the time since the previous ACK counts only within one). */
      tick(period: number): void {
        const now = Date.now();
        if (period === this.lastPeriod) {
          this.ms += now - this.last;
          this.acks += 1;
        }
        this.last = now;
        this.lastPeriod = period;
      },
    };
    let period = 0;
    const allAcked = () => ackedCount() === MESSAGES && lanes.every((l) => !l.pending);

    /** One MLLP connection of one sender: one message at a time, each ACK awaited; ends when the connection does. */
    const pump = async (lane: Lane, port: number, current?: Trap) => {
      const socket = await RawMllpSocket.open(port).catch(() => undefined);
      if (!socket) return;
      try {
        while (!socket.closed) {
          if (!lane.pending) {
            if (taken === MESSAGES) return;
            lane.pending = messages[taken++]!;
          } else resends += 1;
          const message = lane.pending;
          const before = socket.acks.length;
          // One sender, the first to get here once enough messages were ACKed, springs the period's trap.
          const springs = current && !current.sprung && ackedCount() >= current.afterAcks ? current : undefined;
          if (springs) springs.sprung = true;
          if (springs?.kind === 'mid-frame') {
            socket.write(message.bytes.subarray(0, message.bytes.length >> 1));
            springs.spring();
          } else {
            socket.write(message.bytes);
            if (springs?.kind === 'before-ack') springs.spring();
          }
          await socket.waitFor(before + 1, 20_000).catch(() => undefined);
          const ack = socket.acks[before];
          if (!ack) return; // not ACKed: sent again on the next connection
          expect(ack.get('MSA.2')).toBe(message.controlId);
          const code = ack.get('MSA.1');
          if (springs?.kind === 'lost-ack') {
            // The sender never sees this ACK (the process dies now): it sends the message again next time.
            expect(code).toBe('AA');
            droppedAcks.add(message.controlId);
            springs.spring();
            return;
          }
          acked.set(message.controlId, code);
          ackRate.tick(period);
          lane.pending = undefined;
        }
      } finally {
        socket.close();
      }
    };

    const timing = { startup: 0, streaming: 0 };
    const kills: string[] = [];
    /** Messages ACKed but not yet staged when a process died, staged by the next start (its warning says how many). */
    let recovered = 0;
    const recoveredBy = (stderr: string) =>
      Number(/(\d+) messages received before a stop were staged now/.exec(stderr)?.[1] ?? 0);
    // Where in the stream each kill aims: one place drawn at random in each tenth of it, the kinds shuffled.
    const plan = shuffled(STREAM_KILLS).map((mode, i) => ({
      mode,
      at: Math.floor(((i + Math.random()) * MESSAGES) / STREAM_KILLS.length),
    }));
    for (let round = 0; round < plan.length; round += 1) {
      const { mode, at } = plan[round]!;
      const nextAt = plan[round + 1]?.at ?? MESSAGES;
      const spawned = Date.now();
      const serve = startServe();
      const port = await serve.port;
      const opened = Date.now();
      timing.startup += opened - spawned;
      period += 1;
      const before = ackedCount();
      const current = mode === 'time' || mode === 'acks' ? undefined : trap(mode, Math.min(at, MESSAGES - 20));
      const pumping = Promise.all(lanes.map((lane) => pump(lane, port, current)));
      if (mode === 'time') {
        // A wall-clock delay, not tied to any frame or ACK: about as long as the stream takes to get there (from
        // the ACK rate so far), give or take a quarter; cut short should it get past the next kill's place.
        const delay = Math.max(0, at - before) * ackRate.msPerAck() * (0.75 + Math.random() / 2);
        const until = Date.now() + Math.max(delay, Math.random() * 20);
        while (Date.now() < until && ackedCount() < nextAt) await sleep(Math.min(5, until - Date.now()));
      } else if (mode === 'acks') {
        while (ackedCount() < Math.max(at, before + 1) && !allAcked()) await sleep(1);
        await sleep(Math.random() * 3);
      } else {
        await Promise.race([current!.wait, pumping]);
        expect(current!.sprung, `the stream ended before the ${mode} kill`).toBe(true);
        // Half a frame: time for the listener to read it. A written frame: killed while it is handled.
        if (mode === 'mid-frame') await sleep(20 + Math.random() * 30);
        else if (mode === 'before-ack') await sleep(Math.random() * 2);
      }
      const killedAt = ackedCount();
      expect(serve.child.kill('SIGKILL')).toBe(true);
      kills.push(`${mode}@${killedAt}`);
      recovered += recoveredBy((await serve.done).stderr);
      await pumping;
      timing.streaming += Date.now() - opened;
    }

    // The last kill: after the last ACK, while the outbox is still sending (or staging is still under way).
    {
      const spawned = Date.now();
      const serve = startServe();
      const port = await serve.port;
      const opened = Date.now();
      timing.startup += opened - spawned;
      period += 1;
      await Promise.all(lanes.map((lane) => pump(lane, port)));
      expect(allAcked()).toBe(true);
      timing.streaming += Date.now() - opened;
      await sleep(Math.random() * 500);
      const created = sandbox.listOrders().filter((o) => ids.has(o.clinicOrderId)).length;
      expect(serve.child.kill('SIGKILL')).toBe(true);
      kills.push(`outbox@${created}-created`);
      recovered += recoveredBy((await serve.done).stderr);
    }
    expect(kills).toHaveLength(STREAM_KILLS.length + 1);

    const last = startServe();
    await last.port;
    const lastReady = Date.now();
    // Let the outbox send everything (its progress line says so), then stop it cleanly.
    const deadline = Date.now() + 60_000;
    const settled = new RegExp(`outbox: ${MESSAGES} created, 0 queued, 0 in flight or in doubt$`, 'm');
    while (!settled.test(last.output()) && Date.now() < deadline) await sleep(100);
    const outboxWait = Date.now() - lastReady;
    last.child.kill('SIGTERM');
    const run = await last.done;
    recovered += recoveredBy(run.stderr);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^Stopped\./);

    expect([...acked.values()].filter((code) => code !== 'AA')).toEqual([]);
    expect(acked.size).toBe(MESSAGES);

    const remote = sandbox.listOrders().filter((o) => ids.has(o.clinicOrderId));
    const perId = new Map<string, number>();
    for (const order of remote) perId.set(order.clinicOrderId, (perId.get(order.clinicOrderId) ?? 0) + 1);
    expect([...perId.values()].filter((n) => n !== 1)).toEqual([]);
    expect(perId.size).toBe(MESSAGES);

    const resent: string[] = [];
    const store = openStore({ dataDir: data });
    try {
      const staged = store.db
        .prepare('SELECT clinic_order_id AS id, count(*) AS n FROM staged_orders GROUP BY clinic_order_id')
        .all() as Array<{ id: string; n: number }>;
      expect(staged.filter((row) => ids.has(row.id) && row.n !== 1)).toEqual([]);
      expect(staged.filter((row) => ids.has(row.id))).toHaveLength(MESSAGES);
      const local = store.db
        .prepare('SELECT clinic_order_id AS id, state FROM orders WHERE environment_id = ?')
        .all(ENV) as Array<{ id: string; state: string }>;
      expect(local.filter((o) => ids.has(o.id))).toHaveLength(MESSAGES);
      expect(local.filter((o) => ids.has(o.id) && o.state !== 'created')).toEqual([]);
      const intake = store.db.prepare('SELECT count(*) AS n FROM intake_messages').get() as { n: number };
      expect(intake.n).toBe(MESSAGES);
      const audited = (action: string) =>
        store.audit
          .filteredPage({ action }, 0, 1_000_000)
          .filter((row) => row.action === action)
          .map((row) => (JSON.parse(row.detailsJson) as { controlId: string }).controlId);
      // Each message accepted once, whether staged after its ACK or by the next start's recovery.
      const accepted = audited('intake.accepted');
      expect(accepted).toHaveLength(MESSAGES);
      expect(new Set(accepted).size).toBe(MESSAGES);
      // A message whose ACK the sender dropped was answered again from its stored row.
      resent.push(...audited('intake.resent'));
      expect([...droppedAcks].filter((id) => !resent.includes(id))).toEqual([]);
    } finally {
      store.close();
    }
    expect((await runCli(['log', 'verify', '--data-dir', data])).code).toBe(0);
    console.log(
      `intake crash test: kills ${kills.join(' ')}; ${resends} resends (${resent.length} answered from the stored ` +
        `row, ${droppedAcks.size} after a dropped ACK); ${recovered} staged by recovery at start; ` +
        `serve start-up ${timing.startup} ms, streaming ${timing.streaming} ms, ` +
        `outbox's last ${outboxWait} ms`,
    );
  }, 180_000);
});
