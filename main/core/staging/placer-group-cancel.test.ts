import { afterEach, describe, expect, it } from 'vitest';
import { placerGroupMessage, threeItems } from '../importing/testing/placer-group-messages.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { HL7_PROFILE, stagingFixture, uniqueOrder, type StagingFixture } from './testing/staging-fixtures.js';

/**
 * A cancel (ORC-1 CA) in an imported file of an order sent as a placer group: three items, each an ORC-2 of its
 * own, under one ORC-4, accepted as one order numbered by the ORC-4. The service cancels whole orders only, so a
 * cancel naming every item (or the group alone) cancels it, and one naming some of them is refused saying so, in
 * the import and again by the accept. Real SQLite store, the staging service's own import and accept.
 */

let f: StagingFixture | undefined;
afterEach(() => {
  f?.close();
  f = undefined;
});

function open(): StagingFixture {
  f = stagingFixture();
  f.staging.saveProfile(HL7_PROFILE);
  return f;
}

type Order = ReturnType<typeof threeItems>;

let file = 0;
async function staged(fixture: StagingFixture, messages: string[]) {
  const text = `${messages.join('\r')}\r`;
  const outcome = await fixture.staging.importFile({
    environmentId: LOCAL.id,
    path: fixture.file(`file-${++file}.hl7`, text),
    profile: HL7_PROFILE.name,
  });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${JSON.stringify(outcome)}`);
  return { ...outcome, rows: fixture.staging.getBatch(outcome.batchId, { limit: 10 }).orders };
}

/** The order accepted from its grouped new order (ORC-1 NW), queued under its ORC-4. */
async function accepted(fixture: StagingFixture, order: Order) {
  const batch = await staged(fixture, [placerGroupMessage(order, { controlId: 'NW-1' })]);
  expect(batch.rows.map((row) => [row.valid, row.clinicOrderId])).toEqual([[true, order.prescription.clinicOrderId]]);
  expect(fixture.staging.accept(batch.batchId)).toMatchObject({ accepted: 1 });
  return fixture.store.orders.list({ batchId: batch.batchId })[0]!;
}

const cancel = (order: Order, options: Parameters<typeof placerGroupMessage>[1] = {}) =>
  placerGroupMessage(order, { controlId: 'CA-1', orderControl: 'CA', ...options });

describe('a cancel of an order sent as a placer group, imported from a file', () => {
  it('cancels the order on a cancel naming every item (each on its ORC with the ORC-4, in any order) or the group alone', async () => {
    const fixture = open();
    for (const options of [{}, { items: [3, 1, 2] }, { items: [1], placers: [''] }]) {
      const order = threeItems();
      const queued = await accepted(fixture, order);
      const batch = await staged(fixture, [cancel(order, options)]);
      expect({
        options,
        rows: batch.rows.map((row) => [row.orderControl, row.valid, row.clinicOrderId, row.problems]),
      }).toEqual({
        options,
        rows: [['CA', true, order.prescription.clinicOrderId, []]],
      });
      expect(fixture.staging.accept(batch.batchId)).toMatchObject({ cancelled: 1, staying: 0 });
      expect(fixture.store.orders.get(queued.id)?.state).toBe('withdrawn');
    }
  });

  it.each([
    ['two of its three items, each on its ORC', { items: [1, 2] }, 'items', ['-1', '-2']],
    ['one item by its ORC-2 and the ORC-4', { items: [2] }, 'item', ['-2']],
  ])(
    'refuses a cancel naming %s: nothing cancelled, the problem says which items and how many',
    async (_, options, word, named) => {
      const fixture = open();
      const order = threeItems();
      const id = order.prescription.clinicOrderId;
      const queued = await accepted(fixture, order);
      const batch = await staged(fixture, [cancel(order, options)]);
      const [row] = batch.rows;
      expect(row).toMatchObject({ orderControl: 'CA', valid: false, clinicOrderId: id });
      // The order id shown is the group's: the preview points at where it was read.
      expect(row!.provenance['prescription.clinicOrderId']).toMatchObject({ kind: 'hl7', path: 'ORC-4.1' });
      expect(row!.problems.map((p) => [p.code, p.severity, p.field])).toEqual([
        ['cancel.partialOrder', 'error', 'prescription.clinicOrderId'],
      ]);
      const text = row!.problems[0]!.text;
      expect(text).toContain(`names ${word} ${named.map((n) => `'${id}${n}'`).join(', ')} (ORC-2) of order '${id}'`);
      expect(text).toContain(`which has 3 items: '${id}-1', '${id}-2', '${id}-3'`);
      expect(text).toContain('The service cancels whole orders only, so nothing was cancelled.');
      expect(fixture.staging.accept(batch.batchId)).toMatchObject({ cancelled: 0 });
      expect(fixture.store.orders.get(queued.id)?.state).toBe('queued');
    },
  );

  it('refuses a cancel naming an item the group does not have, saying so', async () => {
    const fixture = open();
    const order = threeItems();
    const id = order.prescription.clinicOrderId;
    const queued = await accepted(fixture, order);
    const batch = await staged(fixture, [
      cancel(order, { items: [1, 2, 3], placers: [`${id}-1`, `${id}-2`, `${id}-9`] }),
    ]);
    const [problem] = batch.rows[0]!.problems;
    expect(problem).toMatchObject({ code: 'cancel.partialOrder', severity: 'error' });
    expect(problem!.text).toContain(`; '${id}-9' is not one of them.`);
    fixture.staging.accept(batch.batchId);
    expect(fixture.store.orders.get(queued.id)?.state).toBe('queued');
  });

  it("reads one ORC's ORC-2 as an item of its ORC-4's group only when it is no order of its own", async () => {
    const fixture = open();
    const group = threeItems();
    const groupId = group.prescription.clinicOrderId;
    const single = uniqueOrder({}, 'ONE');
    const singleId = single.prescription.clinicOrderId;
    const groupOrder = await accepted(fixture, group);
    const one = await staged(fixture, [
      placerGroupMessage(single, { controlId: 'NW-2', placers: [singleId], group: '' }),
    ]);
    fixture.staging.accept(one.batchId);
    const batch = await staged(fixture, [
      cancel(group, { controlId: 'CA-1', placers: [`${groupId}-2`], items: [2] }),
      cancel(single, { controlId: 'CA-2', placers: [singleId], group: groupId }),
    ]);
    expect(batch.rows.map((row) => [row.valid, row.clinicOrderId, row.problems.map((p) => p.code)])).toEqual([
      [false, groupId, ['cancel.partialOrder']],
      [true, singleId, []],
    ]);
    expect(fixture.staging.accept(batch.batchId)).toMatchObject({ cancelled: 1 });
    expect(fixture.store.orders.list({ batchId: one.batchId })[0]?.state).toBe('withdrawn');
    expect(fixture.store.orders.get(groupOrder.id)?.state).toBe('queued');
  });

  it('refuses a cancel of some items of a grouped order earlier in the same file, and withdraws it on one of all', async () => {
    const fixture = open();
    const order = threeItems();
    const other = threeItems();
    const batch = await staged(fixture, [
      placerGroupMessage(order, { controlId: 'NW-1' }),
      cancel(order, { controlId: 'CA-1', items: [3] }),
      placerGroupMessage(other, { controlId: 'NW-2' }),
      cancel(other, { controlId: 'CA-2' }),
    ]);
    expect(batch.rows.map((row) => [row.orderControl, row.valid, row.problems.map((p) => p.code)])).toEqual([
      ['NW', true, []],
      ['CA', false, ['cancel.partialOrder']],
      ['NW', true, []],
      ['CA', true, []],
    ]);
    expect(fixture.staging.accept(batch.batchId)).toMatchObject({ accepted: 2, cancelled: 1 });
    const states = fixture.store.orders.list({ batchId: batch.batchId }).map((o) => [o.clinicOrderId, o.state]);
    expect(states).toEqual(
      expect.arrayContaining([
        [order.prescription.clinicOrderId, 'queued'],
        [other.prescription.clinicOrderId, 'withdrawn'],
      ]),
    );
  });

  it('keeps a cancel of some items staged at the accept too (one staged valid before the import checked it)', async () => {
    const fixture = open();
    const order = threeItems();
    const queued = await accepted(fixture, order);
    const batch = await staged(fixture, [cancel(order, { items: [1, 3] })]);
    // A row as an earlier version staged it: valid, no problem.
    const row = fixture.store.stagedOrders.get(batch.rows[0]!.id)!;
    fixture.store.stagedOrders.update(row.id, { ...row, problems: [], valid: true, edited: false });
    expect(fixture.staging.accept(batch.batchId)).toMatchObject({ cancelled: 0 });
    expect(fixture.store.orders.get(queued.id)?.state).toBe('queued');
    const kept = fixture.staging.getBatch(batch.batchId, { limit: 10 }).orders[0]!;
    expect(kept).toMatchObject({ state: 'staged', valid: false });
    expect(kept.problems.map((p) => p.code)).toEqual(['cancel.partialOrder']);
  });
});
