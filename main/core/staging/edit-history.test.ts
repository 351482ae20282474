import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { setAtPath } from './cell-changes.js';
import { REPLACE_STEP_ORDERS } from './staging-service.js';
import {
  hl7File,
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from './testing/staging-fixtures.js';

/**
 * Undo and redo across a batch, each order's edit history, the find-and-replace count before it applies, discarding
 * a batch, finding the next problem, and the HL7 profile hint: real SQLite in a temp dir, through StagingService.
 */

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

function open(): StagingFixture {
  fixture = stagingFixture();
  return fixture;
}

async function staged(f: StagingFixture, name: string, text: string) {
  const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file(name, text) });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${JSON.stringify(outcome)}`);
  return outcome.batchId;
}

const orders = (f: StagingFixture, batchId: number) => f.staging.getBatch(batchId, { limit: 500 }).orders;
const field = (body: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown> | undefined)?.[part], body);

describe('undo and redo across a batch', () => {
  it('takes an edit back exactly (value, where it came from, the import’s own problem, edited) and makes it again', async () => {
    const f = open();
    const ambiguous = withField(uniqueOrder(), 'customer.dateOfBirth', '03/04/1980');
    const batchId = await staged(f, 'orders.csv', templateCsv([uniqueOrder(), ambiguous]));
    const before = orders(f, batchId)[1]!;
    expect(before.problems.map((p) => p.field)).toEqual(['customer.dateOfBirth']);
    expect(f.staging.getBatch(batchId).batch).toMatchObject({ undo: null, redo: null, discardedAt: null });

    const edited = f.staging.editOrder(before.id, { edits: [{ path: 'customer.dateOfBirth', value: '1980-04-03' }] });
    expect(edited).toMatchObject({ valid: true, edited: true, problems: [] });
    expect(f.staging.getBatch(batchId).batch.undo).toMatchObject({ kind: 'edit', position: 2, orders: 1, cells: 1 });

    const undone = f.staging.undo(batchId);
    expect(undone.step).toMatchObject({ kind: 'edit', position: 2 });
    expect(undone.stagedOrderIds).toEqual([before.id]);
    const back = orders(f, batchId)[1]!;
    expect(field(back.body, 'customer.dateOfBirth')).toBe('03/04/1980');
    expect(back.provenance['customer.dateOfBirth']).toEqual(before.provenance['customer.dateOfBirth']);
    expect(back.problems).toEqual(before.problems);
    expect(back).toMatchObject({ valid: false, edited: false });
    expect(f.staging.getBatch(batchId).batch).toMatchObject({ undo: null, redo: { kind: 'edit', position: 2 } });

    f.staging.redo(batchId);
    const again = orders(f, batchId)[1]!;
    expect(again).toMatchObject({ valid: true, edited: true, problems: [] });
    expect(field(again.body, 'customer.dateOfBirth')).toBe('1980-04-03');
    expect(f.staging.undo(batchId).step).not.toBeNull();
    expect(f.staging.undo(batchId)).toMatchObject({ step: null, stagedOrderIds: [] });

    // The audit names the field paths and counts, never a value.
    const entries = f.store.audit.search({ action: 'batch.' }).filter((e) => /undone|redone/.test(e.action));
    expect(entries.map((e) => [e.action, e.details])).toEqual([
      ['batch.undone', { fieldPath: 'customer.dateOfBirth', orderCount: 1 }],
      ['batch.redone', { fieldPath: 'customer.dateOfBirth', orderCount: 1 }],
      ['batch.undone', { fieldPath: 'customer.dateOfBirth', orderCount: 1 }],
    ]);
    const auditText = JSON.stringify(f.store.audit.search({ limit: 200 }));
    for (const value of ['03/04/1980', '1980-04-03']) expect(auditText).not.toContain(value);
    expect(verifyAuditChain(f.store).ok).toBe(true);
  });

  it('undoes a whole find and replace at once; a new change drops what could be redone; history says old → new, when', async () => {
    const f = open();
    const courier = (o: ReturnType<typeof uniqueOrder>) => withField(o, 'prescription.courierCode', 'Royal Mail 24');
    const batchId = await staged(f, 'orders.csv', templateCsv([courier(uniqueOrder()), courier(uniqueOrder())]));
    expect(f.staging.getBatch(batchId).batch.counts).toMatchObject({ valid: 0, invalid: 2 });

    const replaced = await f.staging.replace({
      batchId,
      field: 'courierCode',
      find: 'Royal Mail 24',
      replace: 'RMT24',
    });
    expect(replaced).toMatchObject({ changed: 2, cells: 2, counts: { valid: 2, invalid: 0 } });
    expect(f.staging.getBatch(batchId).batch.undo).toMatchObject({
      kind: 'replace',
      field: 'prescription.courierCode',
      position: null,
      orders: 2,
      cells: 2,
    });
    const [first] = orders(f, batchId);
    f.staging.editOrder(first!.id, { edits: [{ path: 'customer.firstName', value: 'Sam' }] });

    f.staging.undo(batchId); // the edit
    expect(f.staging.undo(batchId)).toMatchObject({ step: { kind: 'replace' }, counts: { valid: 0, invalid: 2 } });
    expect(orders(f, batchId).map((o) => field(o.body, 'prescription.courierCode'))).toEqual([
      'Royal Mail 24',
      'Royal Mail 24',
    ]);
    f.staging.redo(batchId); // the replace again
    expect(f.staging.getBatch(batchId).batch).toMatchObject({ counts: { valid: 2 }, redo: { kind: 'edit' } });

    // A new edit: the undone first-name edit can no longer be redone, and the history keeps it as dropped.
    f.staging.editOrder(first!.id, { edits: [{ path: 'customer.firstName', value: 'Kim' }] });
    expect(f.staging.getBatch(batchId).batch.redo).toBeNull();
    const history = f.staging.orderHistory(first!.id);
    expect(history.map((h) => [h.kind, h.path, h.before, h.after, h.state])).toEqual([
      ['edit', 'customer.firstName', 'Alex', 'Kim', 'done'],
      ['edit', 'customer.firstName', 'Alex', 'Sam', 'dropped'],
      ['replace', 'prescription.courierCode', 'Royal Mail 24', 'RMT24', 'done'],
    ]);
    expect(history[1]!.undoneAt).toEqual(expect.any(String));
    expect(history[0]!.at).toEqual(expect.any(String));
  });

  it('replaces across a big batch in steps, other changes of it refused meanwhile, still one undo and one total', async () => {
    const f = open();
    const courier = (o: ReturnType<typeof uniqueOrder>) => withField(o, 'prescription.courierCode', 'Royal Mail 24');
    const batchId = await staged(f, 'big.csv', templateCsv(Array.from({ length: 1200 }, () => courier(uniqueOrder()))));
    const [first] = orders(f, batchId);

    // The first step runs at once; the rest after turns of the loop, with the batch closed to other changes.
    const running = f.staging.replace({ batchId, field: 'courierCode', find: 'Royal Mail 24', replace: 'RMT24' });
    expect(() => f.staging.editOrder(first!.id, { edits: [{ path: 'customer.firstName', value: 'X' }] })).toThrow(
      `batch ${batchId} is being changed by a find and replace; edit it once that has finished`,
    );
    expect(() => f.staging.undo(batchId)).toThrow(/being changed by a find and replace/);
    await expect(f.staging.acceptAll(batchId)).rejects.toThrow(/being changed by a find and replace; accept it/);
    expect(await running).toMatchObject({ changed: 1200, cells: 1200, counts: { valid: 1200, invalid: 0 } });

    const entries = f.store.audit
      .search({ limit: 100 })
      .filter((e) => e.action.startsWith('batch.replac'))
      .reverse()
      .map((e) => [e.action, e.details.orderCount]);
    // One entry per step but the last (REPLACE_STEP_ORDERS each), then the total.
    const steps = Math.floor((1200 - 1) / REPLACE_STEP_ORDERS);
    expect(steps).toBeGreaterThan(1);
    expect(entries).toEqual([
      ...Array.from({ length: steps }, () => ['batch.replacing', REPLACE_STEP_ORDERS]),
      ['batch.replaced', 1200],
    ]);
    expect(f.staging.getBatch(batchId).batch.undo).toMatchObject({ kind: 'replace', orders: 1200, cells: 1200 });
    expect(f.staging.undo(batchId)).toMatchObject({ step: { kind: 'replace' }, counts: { valid: 0, invalid: 1200 } });
    const couriers = new Set(
      f.staging.getBatch(batchId, { limit: 1200 }).orders.map((o) => field(o.body, 'prescription.courierCode')),
    );
    expect([...couriers]).toEqual(['Royal Mail 24']);
    // Free again once it is done.
    expect(f.staging.editOrder(first!.id, { edits: [{ path: 'customer.firstName', value: 'Sam' }] })).toMatchObject({
      edited: true,
    });
    expect(verifyAuditChain(f.store).ok).toBe(true);
  });

  it('counts what a find and replace would change before it applies, writing nothing', async () => {
    const f = open();
    const two = withField(withField(uniqueOrder(), 'prescribedItems.0.medication', 'Aspirin 75mg'), 'pack', 1);
    const batchId = await staged(f, 'orders.csv', templateCsv([uniqueOrder(), two]));
    const audited = f.store.audit.search({ limit: 100 }).length;
    const dry = await f.staging.replace({
      batchId,
      field: 'prescribedItems.*.medication',
      find: 'mg',
      replace: ' mg',
      match: 'contains',
      dryRun: true,
    });
    expect(dry).toMatchObject({ changed: 2, cells: 2 });
    expect(orders(f, batchId).map((o) => field(o.body, 'prescribedItems.0.medication'))).toEqual([
      'Paracetamol 500mg tablets',
      'Aspirin 75mg',
    ]);
    expect(f.store.audit.search({ limit: 100 })).toHaveLength(audited);
    expect(f.staging.getBatch(batchId).batch.undo).toBeNull();
  });

  it('cannot undo into an accepted batch; a change of orders still staged can be', async () => {
    const f = open();
    const bad = withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE');
    const batchId = await staged(
      f,
      'orders.csv',
      templateCsv([withField(uniqueOrder(), 'customer.firstName', 'A'), bad]),
    );
    const [good, invalid] = orders(f, batchId);
    f.staging.editOrder(good!.id, { edits: [{ path: 'customer.firstName', value: 'Ann' }] });
    f.staging.accept(batchId);
    expect(f.staging.getBatch(batchId).batch.undo).toBeNull();
    expect(() => f.staging.undo(batchId)).toThrow(/accepted into the outbox since; it cannot be undone/);

    f.staging.editOrder(invalid!.id, { edits: [{ path: 'customer.firstName', value: 'Bo' }] });
    expect(f.staging.getBatch(batchId).batch.undo).toMatchObject({ position: 2 });
    expect(f.staging.undo(batchId).step).toMatchObject({ position: 2 });
    // Below it, the accepted order's edit stays where it is.
    expect(() => f.staging.undo(batchId)).toThrow(/cannot be undone/);
  });

  it('takes back an item the edit added, and redoes a value it could not read with its problem', async () => {
    const f = open();
    const batchId = await staged(f, 'orders.csv', templateCsv([uniqueOrder()]));
    const [order] = orders(f, batchId);
    const item = { dmdCode: '42109611000001109', medication: 'Paracetamol', dosageInstructions: 'One', quantity: '2' };
    f.staging.editOrder(order!.id, {
      edits: Object.entries(item).map(([key, value]) => ({ path: `prescribedItems.1.${key}`, value })),
    });
    expect((field(orders(f, batchId)[0]!.body, 'prescribedItems') as unknown[]).length).toBe(2);
    f.staging.undo(batchId);
    expect((field(orders(f, batchId)[0]!.body, 'prescribedItems') as unknown[]).length).toBe(1);
    expect(orders(f, batchId)[0]).toMatchObject({ valid: true, edited: false });

    f.staging.editOrder(order!.id, { edits: [{ path: 'customer.dateOfBirth', value: '03/04/1980' }] });
    const unreadable = orders(f, batchId)[0]!.problems;
    expect(unreadable.map((p) => p.code)).toEqual(['date.ambiguous']);
    f.staging.undo(batchId);
    expect(orders(f, batchId)[0]!.problems).toEqual([]);
    f.staging.redo(batchId);
    expect(orders(f, batchId)[0]!.problems).toEqual(unreadable);
  });

  it('puts values back at their paths, dropping an item left empty at the end', () => {
    const body: Record<string, unknown> = {
      customer: { title: 'Ms' },
      prescribedItems: [{ quantity: 1 }, { quantity: 2 }],
    };
    setAtPath(body, 'customer.title', undefined);
    setAtPath(body, 'prescribedItems.1.quantity', undefined);
    setAtPath(body, 'deliveryAddress.city', 'Leeds');
    setAtPath(body, 'homeAddress.city', undefined);
    expect(body).toEqual({ customer: {}, prescribedItems: [{ quantity: 1 }], deliveryAddress: { city: 'Leeds' } });
  });
});

describe('discarding a batch', () => {
  it('keeps its staged orders from the outbox and from every change, audited; refused when nothing is staged', async () => {
    const f = open();
    const batchId = await staged(f, 'orders.csv', templateCsv([uniqueOrder(), uniqueOrder()]));
    const [order] = orders(f, batchId);
    f.staging.editOrder(order!.id, { edits: [{ path: 'customer.firstName', value: 'Sam' }] });
    expect(f.staging.discard(batchId)).toMatchObject({ discarded: 2, counts: { staged: 2 } });
    expect(f.staging.getBatch(batchId).batch).toMatchObject({
      discardedAt: expect.any(String) as unknown,
      undo: null,
      redo: null,
    });
    expect(() => f.staging.accept(batchId)).toThrow(/discarded/);
    expect(() => f.staging.editOrder(order!.id, { edits: [{ path: 'customer.firstName', value: 'X' }] })).toThrow(
      /discarded/,
    );
    await expect(f.staging.replace({ batchId, field: 'courierCode', find: 'RMT24', replace: 'DPD' })).rejects.toThrow(
      /discarded/,
    );
    expect(() => f.staging.undo(batchId)).toThrow(/discarded/);
    expect(() => f.staging.discard(batchId)).toThrow(/discarded/);
    expect(f.store.orders.list({ batchId })).toEqual([]);
    const [entry] = f.store.audit.search({ action: 'batch.discarded' });
    expect(entry).toMatchObject({ batchId, details: { orderCount: 2 } });

    const accepted = await staged(f, 'accepted.csv', templateCsv([uniqueOrder()]));
    f.staging.accept(accepted);
    expect(() => f.staging.discard(accepted)).toThrow(/already accepted into the outbox; there is nothing to discard/);
  });
});

describe('finding problems', () => {
  it('finds the next and previous order with a problem, with its place among them, and counts problems by field', async () => {
    const f = open();
    const bad = (path: string, value: unknown) => withField(uniqueOrder(), path, value);
    const batchId = await staged(
      f,
      'orders.csv',
      templateCsv([
        uniqueOrder(),
        bad('homeAddress.postCode', 'NOT A POSTCODE'),
        uniqueOrder(),
        bad('prescribedItems.0.dmdCode', '12345678'),
        bad('homeAddress.postCode', 'ALSO BAD'),
      ]),
    );
    expect(f.staging.findProblem(batchId, 0, 'next')).toMatchObject({ position: 2, problemIndex: 0 });
    expect(f.staging.findProblem(batchId, 2, 'next')).toMatchObject({ position: 4, problemIndex: 1 });
    expect(f.staging.findProblem(batchId, 5, 'next')).toBeNull();
    expect(f.staging.findProblem(batchId, 4, 'previous')).toMatchObject({ position: 2, problemIndex: 0 });
    expect(f.staging.findProblem(batchId, 2, 'previous')).toBeNull();
    const fields = f.staging.problemFields(batchId);
    expect(fields.find((entry) => entry.field === 'homeAddress.postCode')).toEqual({
      field: 'homeAddress.postCode',
      errors: 2,
      warnings: 0,
    });
    expect(fields.find((entry) => entry.field === 'prescribedItems.*.dmdCode')).toMatchObject({ errors: 1 });
  });
});

describe('HL7 orders without payment type, courier or currency', () => {
  it('say which profile setting fixes it, once, and not on the forward route', async () => {
    const f = open();
    const batchId = await staged(f, 'plain.hl7', hl7File([uniqueOrder()]));
    const required = () =>
      orders(f, batchId)[0]!.problems.filter(
        (p) => p.field === 'prescription.courierCode' && p.code === 'field.required',
      );
    expect(required()).toHaveLength(1);
    expect(required()[0]!.text).toMatch(
      /An HL7 order message has no courier: choose one for "Courier" in the HL7 mapping profile for this sender \(Import, "HL7 mapping"\)/,
    );
    f.staging.setRoute(batchId, 'hl7');
    expect(required()[0]!.text).not.toMatch(/HL7 mapping/);
    f.staging.setRoute(batchId, 'v2');
    expect(required()[0]!.text.match(/choose one for/g)).toHaveLength(1);
    const [order] = orders(f, batchId);
    f.staging.editOrder(order!.id, { edits: [{ path: 'customer.firstName', value: 'Sam' }] });
    expect(required()[0]!.text.match(/choose one for/g)).toHaveLength(1);
    // CSV orders get no such sentence: their file has a column for it.
    const csv = await staged(
      f,
      'o.csv',
      templateCsv([withField(uniqueOrder(), 'prescription.courierCode', undefined)]),
    );
    expect(
      orders(f, csv)[0]!
        .problems.map((p) => p.text)
        .join(' '),
    ).not.toMatch(/HL7 mapping/);
  });
});
