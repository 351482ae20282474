import { describe, expect, it } from 'vitest';
import { RawMllpSocket, frame, sendWithLibrary } from '../../../test/support/hl7-client.js';
import { placerGroupMessage, threeItems } from '../importing/testing/placer-group-messages.js';
import type { StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import type { IntakeRules } from './intake-service.js';
import { SENDER_A as A, SENDER_B as B, twoSendersIntakePerTest, withoutOwnIds } from './testing/two-senders.js';

/**
 * A cancel (ORC-1 CA) through the live intake of an order its sender sent as a placer group: three items, each an
 * ORC-2 of its own, under one ORC-4, accepted as one order numbered by the ORC-4. The service cancels whole orders
 * only, so a cancel naming every item (or the group alone) acts and is answered AA, and one naming some of them is
 * answered AE with one ERR saying which items were named and how many the order has, staged with that problem,
 * nothing cancelled. Another sender's cancel of it is answered as one of no order at all (docs/security.md, finding
 * 24). Real MLLP over loopback, a real store.
 */

const startIntake = twoSendersIntakePerTest();

/** The intake for both senders, and `send`: messages sent by an HL7 library, answered and staged. */
async function start(rules: IntakeRules = { mode: 'send' }) {
  const running = await startIntake(rules);
  const send = async (messages: string[]) => {
    const acks = await sendWithLibrary(running.port, messages);
    await running.intake.staged();
    return acks;
  };
  return { ...running, send };
}

type Order = ReturnType<typeof threeItems>;

let seq = 0;
const nw = (order: Order, sender = A) => placerGroupMessage(order, { controlId: `NW-${++seq}`, ...sender });
const ca = (order: Order, options: Parameters<typeof placerGroupMessage>[1] = {}) =>
  placerGroupMessage(order, { controlId: `CA-${++seq}`, orderControl: 'CA', ...A, ...options });

function statesOf(f: StagingFixture, order: Order): string[] {
  const rows = f.store.db
    .prepare('SELECT state FROM orders WHERE clinic_order_id = ?')
    .all(order.prescription.clinicOrderId) as Array<{ state: string }>;
  return rows.map((row) => row.state);
}

describe('a cancel through the intake of an order its sender sent as a placer group', () => {
  it('acts on a cancel naming every item, or the group alone: AA, the order withdrawn', async () => {
    const r = await start();
    for (const options of [{}, { items: [2, 3, 1] }, { items: [1], placers: [''] }]) {
      const order = threeItems();
      const [created] = await r.send([nw(order)]);
      expect(created!.get('MSA.1')).toBe('AA');
      expect(statesOf(r.fixture, order)).toEqual(['queued']);
      const [ack] = await r.send([ca(order, options)]);
      expect({ options, code: ack!.get('MSA.1'), errors: ack!.errors }).toEqual({ options, code: 'AA', errors: [] });
      expect(statesOf(r.fixture, order)).toEqual(['withdrawn']);
    }
  });

  it.each([
    ['two of its three items, each on its ORC', [1, 2], 'items'],
    ['one item by its ORC-2 and the ORC-4', [3], 'item'],
  ])(
    'answers a cancel naming %s AE with one ERR saying so; stages it with the problem; cancels nothing',
    async (_, items, word) => {
      const r = await start();
      const order = threeItems();
      const id = order.prescription.clinicOrderId;
      await r.send([nw(order)]);
      const message = ca(order, { items, controlId: 'CA-SOME' });
      const socket = await RawMllpSocket.open(r.port);
      let first: string;
      let resent: string;
      try {
        socket.write(frame(message));
        await socket.waitFor(1);
        socket.write(frame(message));
        const answers = await socket.waitFor(2);
        [first, resent] = [answers[0]!.text, answers[1]!.text];
      } finally {
        socket.close();
      }
      await r.intake.staged();
      expect(first).toMatch(/\rMSA\|AE\|CA-SOME\r/);
      const errs = first.split('\r').filter((segment) => segment.startsWith('ERR'));
      expect(errs).toHaveLength(1);
      const named = items.map((n) => `'${id}-${n}'`).join(', ');
      expect(errs[0]).toContain(
        `ERR|||207^Application internal error^HL70357|E||||The cancel (ORC-1 CA) names ${word} ${named}`,
      );
      expect(errs[0]).toContain(`which has 3 items: '${id}-1', '${id}-2', '${id}-3'`);
      expect(errs[0]).toContain('The service cancels whole orders only, so nothing was cancelled.');
      expect(resent).toBe(first);
      expect(statesOf(r.fixture, order)).toEqual(['queued']);

      const batchId = r.intake.repo.find(LOCAL.id, 'EPR-7^CLINIC-H', 'CA-SOME')!.batchId!;
      const cancels = r.fixture.staging.getBatch(batchId, { limit: 10 }).orders.filter((o) => o.orderControl === 'CA');
      expect(cancels.map((o) => [o.state, o.valid, o.clinicOrderId, o.problems.map((p) => p.code)])).toEqual([
        ['staged', false, id, ['cancel.partialOrder']],
      ]);
    },
  );

  it('holds the same way while the order waits for review (hold): all items AA and staged, some AE', async () => {
    const r = await start({ mode: 'hold' });
    const order = threeItems();
    const id = order.prescription.clinicOrderId;
    const [created] = await r.send([nw(order)]);
    expect(created!.get('MSA.1')).toBe('AA');
    const [some] = await r.send([ca(order, { items: [2] })]);
    expect(some!.get('MSA.1')).toBe('AE');
    expect(some!.errors.map((e) => e.text)).toEqual([
      expect.stringContaining(`names item '${id}-2' (ORC-2) of order '${id}'`),
    ]);
    const [all] = await r.send([ca(order)]);
    expect(all!.get('MSA.1')).toBe('AA');
    const batchId = r.intake.repo.find(LOCAL.id, 'EPR-7^CLINIC-H', `CA-${seq}`)!.batchId!;
    const rows = r.fixture.staging.getBatch(batchId, { limit: 10 }).orders;
    expect(rows.map((o) => [o.orderControl, o.state, o.valid, o.problems.map((p) => p.code)])).toEqual([
      ['NW', 'staged', true, []],
      ['CA', 'staged', false, ['cancel.partialOrder']],
      ['CA', 'staged', true, []],
    ]);
    // The pharmacy's accept queues the order and withdraws it on the cancel of all its items, not the other.
    expect(r.fixture.staging.accept(batchId)).toMatchObject({ accepted: 1, cancelled: 1 });
    expect(statesOf(r.fixture, order)).toEqual(['withdrawn']);
  });

  it("answers another sender's cancel of the group, or of one item, as one of no order at all; its own sender's, with the items", async () => {
    const answers: string[][] = [];
    const order = threeItems();
    const id = order.prescription.clinicOrderId;
    let withA: Awaited<ReturnType<typeof start>> | undefined;
    for (const existing of [true, false]) {
      const r = await start();
      if (existing) {
        await r.send([nw(order)]);
        withA = r;
      }
      const socket = await RawMllpSocket.open(r.port);
      try {
        socket.write(frame(ca(order, { ...B, items: [1, 2], controlId: 'CA-B-1' })));
        await socket.waitFor(1);
        socket.write(frame(ca(order, { ...B, items: [2], controlId: 'CA-B-2' })));
        answers.push((await socket.waitFor(2)).map((answer) => withoutOwnIds(answer.text)));
      } finally {
        socket.close();
      }
      await r.intake.staged();
    }
    const [withOrder, withNone] = answers;
    expect(withOrder).toEqual(withNone);
    expect(withNone![0]).toContain(`ORC-1 CA for order '${id}' of clinic`);
    expect(withNone![1]).toContain(`ORC-1 CA for order '${id}-2' of clinic`);
    for (const answer of withOrder!) {
      expect(answer).toContain('|AE|');
      expect(answer).toContain('EPR-9\\S\\CLINIC-K sent no order with that identity');
    }
    expect(statesOf(withA!.fixture, order)).toEqual(['queued']);

    // The same cancel of one item from the order's own sender is told which items the order has.
    const [own] = await withA!.send([ca(order, { items: [2] })]);
    expect(own!.get('MSA.1')).toBe('AE');
    expect(own!.errors.map((e) => e.text)).toEqual([
      expect.stringContaining(`which has 3 items: '${id}-1', '${id}-2', '${id}-3'`),
    ]);
    expect(statesOf(withA!.fixture, order)).toEqual(['queued']);
  });
});
