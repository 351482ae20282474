import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendWithLibrary } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { templateCsv, uniqueOrder, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { IntakeRepo } from '../store/intake-repo.js';
import { FolderWatcher } from './folder-watcher.js';
import { IntakeService } from './intake-service.js';
import {
  SENDER_A as A,
  SENDER_B as B,
  twoSendersFixture,
  twoSendersIntakePerTest,
  type TwoSendersIntake,
} from './testing/two-senders.js';

// docs/security.md finding 22: senders are not tied to clinic codes, so a cancel (ORC-1 CA) that arrives through the
// intake acts only on an order the same sender (MSH-3^MSH-4) sent. Any other stays staged, with the reason, for an
// admin to decide; the sender is answered AE. Real MLLP over loopback, a real store.

const start = twoSendersIntakePerTest();

let seq = 0;
type Order = ReturnType<typeof uniqueOrder>;
const nw = (order: Order, sender: typeof A) => writeRde011(order, { controlId: `NW-${++seq}`, ...sender });
const ca = (order: Order, sender: typeof A, controlId = `CA-${++seq}`) =>
  writeRde011(order, { controlId, orderControl: 'CA', ...sender });

function stateOf(f: StagingFixture, order: Order): string {
  const row = f.store.db
    .prepare('SELECT state FROM orders WHERE clinic_order_id = ?')
    .get(order.prescription.clinicOrderId) as { state: string };
  return row.state;
}

async function send(r: TwoSendersIntake, messages: string[]) {
  const acks = await sendWithLibrary(r.port, messages);
  await r.intake.staged();
  return acks;
}

describe('a cancel through the intake acts only on its own sender’s orders', () => {
  it("does not cancel sender A's order on sender B's cancel: staged with the reason, AE, audited; an admin may accept it", async () => {
    const r = await start({ mode: 'send' });
    const order = uniqueOrder({}, 'ORIGIN');
    await send(r, [nw(order, A)]);
    expect(stateOf(r.fixture, order)).toBe('queued');

    const [ack] = await send(r, [ca(order, B, 'CA-FROM-B')]);
    expect(ack!.get('MSA.1')).toBe('AE');
    expect(ack!.get('MSA.2')).toBe('CA-FROM-B');
    expect(ack!.get('ERR.8')).toContain('EPR-9^CLINIC-K sent no order with that identity, so nothing was cancelled');
    expect(stateOf(r.fixture, order)).toBe('queued');

    const batchId = r.intake.repo.find(LOCAL.id, 'EPR-9^CLINIC-K', 'CA-FROM-B')!.batchId!;
    const [held] = r.fixture.staging.getBatch(batchId, { limit: 10 }).orders;
    expect(held).toMatchObject({ orderControl: 'CA', state: 'staged', valid: true });
    const problem = held!.problems.find((p) => p.code === 'cancel.otherSender')!;
    expect(problem.text).toContain(
      `ORC-1 CA for order '${order.prescription.clinicOrderId}' of clinic '${order.clinicInformation.clinicCode}', which EPR-9^CLINIC-K did not send`,
    );
    expect(problem.text).toContain('Review it');

    const audited = r.fixture.store.audit.search({ action: 'intake.cancel.held' });
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ batchId, details: { sender: 'EPR-9^CLINIC-K', controlId: 'CA-FROM-B' } });
    expect(JSON.stringify(audited[0])).not.toContain(order.customer.surname);

    // The admin, who is the one deciding here, can still accept it: the order is then withdrawn unsent.
    expect(r.fixture.staging.accept(batchId)).toMatchObject({ cancelled: 1 });
    expect(stateOf(r.fixture, order)).toBe('withdrawn');
  });

  it("still acts on a sender's own cancel of an order it sent in an earlier message", async () => {
    const r = await start({ mode: 'send' });
    const order = uniqueOrder({}, 'ORIGIN');
    await send(r, [nw(order, A)]);
    const [ack] = await send(r, [ca(order, A)]);
    expect(ack!.get('MSA.1')).toBe('AA');
    expect(stateOf(r.fixture, order)).toBe('withdrawn');
    expect(r.fixture.store.audit.search({ action: 'intake.cancel.held' })).toHaveLength(0);
  });

  it('holds a cancel of an order an admin imported from a file', async () => {
    const r = await start({ mode: 'send' });
    const order = uniqueOrder({}, 'ORIGIN');
    const imported = await r.fixture.staging.importFile({
      environmentId: LOCAL.id,
      path: r.fixture.file('orders.csv', templateCsv([order])),
    });
    if (imported.status !== 'staged') throw new Error('the file was not staged');
    r.fixture.staging.accept(imported.batchId);
    expect(stateOf(r.fixture, order)).toBe('queued');

    const [ack] = await send(r, [ca(order, A)]);
    expect(ack!.get('MSA.1')).toBe('AE');
    expect(stateOf(r.fixture, order)).toBe('queued');
  });
});

describe('the accept checks the sender too (an order accepted after the cancel was read)', () => {
  it("keeps B's cancel staged when A's order with that identity was accepted before B's own", async () => {
    const f = twoSendersFixture();
    try {
      const order = uniqueOrder({}, 'ORIGIN');
      // Answered but unstaged rows, as a stop after the ACKs leaves them: the start reads all three before staging
      // any, so B's cancel names B's own pending order when read; at the accept, A's came first.
      const intake = new IntakeService({ store: f.store, staging: f.staging, environmentId: LOCAL.id });
      const rows: Array<[string, string, string]> = [
        ['EPR-7^CLINIC-H', 'R-1', nw(order, A)],
        ['EPR-9^CLINIC-K', 'R-2', nw(order, B)],
        ['EPR-9^CLINIC-K', 'R-3', ca(order, B)],
      ];
      for (const [sender, controlId, text] of rows) {
        intake.repo.record({
          environmentId: LOCAL.id,
          channel: 'mllp',
          sender,
          controlId,
          peer: '127.0.0.1:5000',
          raw: Buffer.from(text),
          outcome: 'AA',
          ack: 'MSH|^~\\&|ACK',
          batchId: null,
        });
      }
      await intake.close();
      const restarted = new IntakeService({
        store: f.store,
        staging: f.staging,
        environmentId: LOCAL.id,
        rules: { mode: 'send' },
      });
      expect(await restarted.recover()).toBe(3);
      await restarted.close();
      expect(stateOf(f, order)).toBe('queued');
      const batchId = restarted.repo.find(LOCAL.id, 'EPR-9^CLINIC-K', 'R-3')!.batchId!;
      const staged = f.staging.getBatch(batchId, { limit: 10 }).orders;
      expect(staged.map((o) => [o.orderControl, o.state, o.problems.map((p) => p.code)])).toEqual([
        ['NW', 'staged', expect.arrayContaining(['order.alreadyKnown'])],
        ['CA', 'staged', ['cancel.otherSender']],
      ]);
      expect(f.store.audit.search({ action: 'intake.cancel.held' })).toHaveLength(1);
    } finally {
      f.close();
    }
  });
});

describe('a cancel in a watched folder’s file acts only on its own message’s sender’s orders', () => {
  function watching() {
    const f = twoSendersFixture();
    const dir = join(f.dataDir, 'inbox');
    mkdirSync(dir);
    const watcher = new FolderWatcher({
      dir,
      environmentId: LOCAL.id,
      store: f.store,
      staging: f.staging,
      repo: new IntakeRepo(f.store.db, f.store.now),
      rules: { mode: 'send' },
    });
    const drop = async (name: string, messages: string[]) => {
      writeFileSync(join(dir, name), `${messages.join('\r')}\r`);
      await watcher.pollOnce();
      await watcher.pollOnce();
    };
    return { f, dir, drop };
  }

  it("keeps B's file's cancel of A's order staged, sets the file aside with the reason; A's own cancels act", async () => {
    const { f, dir, drop } = watching();
    try {
      const order = uniqueOrder({}, 'ORIGIN');
      const other = uniqueOrder({}, 'ORIGIN');
      await drop('a.hl7', [nw(order, A), nw(other, A)]);
      expect([stateOf(f, order), stateOf(f, other)]).toEqual(['queued', 'queued']);

      await drop('b.hl7', [ca(order, B)]);
      expect(stateOf(f, order)).toBe('queued');
      expect(readdirSync(join(dir, 'failed')).sort()).toEqual(['b.hl7', 'b.hl7.problems.txt']);
      // The note is read on the folder's side: it says what B sent, never which batch or file the order came from.
      const note = readFileSync(join(dir, 'failed', 'b.hl7.problems.txt'), 'utf8');
      expect(note).toBe(
        `message 1: ORC-1 CA for order '${order.prescription.clinicOrderId}' of clinic '${order.clinicInformation.clinicCode}' ` +
          "was not acted on: EPR-9^CLINIC-K sent no order with that identity, so nothing was cancelled. It waits for the pharmacy's review.\n",
      );
      expect(note).not.toContain('a.hl7');
      const held = f.store.audit.search({ action: 'intake.cancel.held' });
      expect(held).toHaveLength(1);
      const [cancel] = f.staging.getBatch(held[0]!.batchId!, { limit: 10 }).orders;
      expect(cancel).toMatchObject({ orderControl: 'CA', state: 'staged', valid: true });
      expect(cancel!.problems.map((p) => p.code)).toEqual(['cancel.otherSender']);

      // A's cancel of its earlier file's order, and a new order with its cancel in one file: both act.
      const third = uniqueOrder({}, 'ORIGIN');
      await drop('a2.hl7', [ca(other, A), nw(third, A), ca(third, A)]);
      expect([stateOf(f, other), stateOf(f, third)]).toEqual(['withdrawn', 'withdrawn']);
      expect(existsSync(join(dir, 'done', 'a2.hl7'))).toBe(true);
    } finally {
      f.close();
    }
  });
});
