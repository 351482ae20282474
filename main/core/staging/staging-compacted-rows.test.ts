import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { ORDER_ORIGIN_SQL } from '../store/order-views.js';
import { applyRetention } from '../store/retention-runner.js';
import { openStore, type Store } from '../store/store.js';
import { compactAsBefore } from '../store/testing/legacy-compaction.js';
import { LOCAL, removeDir, tempDataDir } from '../store/testing/store-fixtures.js';
import { orderDetail, orderSource } from '../views.js';
import { StagingService } from './staging-service.js';
import { settleOrders } from './testing/settle-orders.js';
import {
  HL7_PROFILE,
  hl7File,
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from './testing/staging-fixtures.js';

/**
 * The compacted form of a staged row (store/compacted-staged-rows.ts): what retention leaves of an accepted order's
 * staged copy is small, and every reader of an accepted batch (the batch's pages and problems, `batch show`, the
 * error and template exports, an order's detail and source, the edit history, enrichment, the identity check)
 * answers as it did for a row compacted by the earlier code, which still reads and is rewritten smaller later.
 */

const DAY = 86_400_000;
const AT = new Date(Date.now() + 91 * DAY);

let fixture: StagingFixture | undefined;
const opened: Store[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const store of opened.splice(0)) if (store.isOpen) store.close();
  for (const dir of dirs.splice(0)) removeDir(dir);
  fixture?.close();
  fixture = undefined;
});

interface Built {
  dataDir: string;
  csv: number;
  hl7: number;
  /** Orders in id order: CSV rejected, processed, tracked (open), processed; HL7 processed, processed. */
  orders: number[];
}

async function build(): Promise<Built> {
  const f = stagingFixture();
  fixture = f;
  f.staging.saveProfile(HL7_PROFILE);
  const imported = async (name: string, text: string, options: Record<string, string> = {}) => {
    const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file(name, text), ...options });
    if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
    return outcome.batchId;
  };
  const csv = await imported(
    'orders.csv',
    templateCsv([
      uniqueOrder(),
      uniqueOrder({ clinicCode: 'CLINIC-Z' }),
      uniqueOrder(),
      uniqueOrder(),
      withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE'),
    ]),
  );
  // Edited before the accept: the edit history and the order's "edited" outlive the copies.
  const first = f.staging.getBatch(csv, { limit: 1 }).orders[0]!;
  f.staging.editOrder(first.id, { edits: [{ path: 'customer.firstName', value: 'Kim' }] });
  expect(f.staging.accept(csv)).toMatchObject({ accepted: 4, staying: 1 });
  const hl7 = await imported('messages.hl7', hl7File([uniqueOrder(), uniqueOrder()]), {
    profile: HL7_PROFILE.name,
    route: 'hl7',
  });
  expect(f.staging.accept(hl7)).toMatchObject({ accepted: 2 });
  const orders = settleOrders(f.store, ['rejected', 'processed', 'tracked', 'processed', 'processed', 'processed']);
  f.store.close();
  return { dataDir: join(f.dataDir, 'data'), csv, hl7, orders };
}

/** A copy of the built store's directory, opened at the clock `AT`. */
function copyOf(built: Built): Store {
  const dir = tempDataDir('rx-compacted-');
  dirs.push(dir);
  cpSync(built.dataDir, dir, { recursive: true });
  const store = openStore({ dataDir: dir, now: () => AT });
  opened.push(store);
  return store;
}

function serviceOf(store: Store): StagingService {
  return new StagingService({ store, codeListsFor: () => LOCAL.codeLists });
}

const stagedIds = (store: Store) =>
  store.db.prepare('SELECT id FROM staged_orders ORDER BY id').pluck().all() as number[];

/** Everything a screen, the CLI or an export reads of the batches and their orders. */
function readers(store: Store, built: Built) {
  const staging = serviceOf(store);
  const ids = stagedIds(store);
  const joined = (lines: Iterable<string>) => [...lines].join('');
  const batch = (batchId: number) => ({
    page: staging.getBatch(batchId, { limit: 100 }),
    problems: staging.getBatch(batchId, { limit: 100, onlyProblems: true }),
    show: [...staging.walkBatch(batchId)],
    errors: joined(staging.errorCsv(batchId)),
    template: joined(staging.templateCsv(batchId)),
    next: staging.findProblem(batchId, 0, 'next'),
    previous: staging.findProblem(batchId, 100, 'previous'),
    fields: staging.problemFields(batchId),
    counts: store.stagedOrders.counts(batchId),
    after: store.stagedOrders.after(batchId, 0, 100),
    accepted: store.stagedOrders.after(batchId, 0, 100, { state: 'accepted' }),
    pageIds: store.enrichment.pageIds(batchId, 0, 100),
    items: store.enrichment.itemsOf(batchId, ids),
  });
  return {
    batches: staging.listBatches(LOCAL.id),
    csv: batch(built.csv),
    hl7: batch(built.hl7),
    staged: ids.map((id) => {
      const order = store.stagedOrders.get(id)!;
      const twin =
        order.clinicCode && order.clinicOrderId
          ? store.stagedOrders.earlierWithIdentity(order.batchId, order.clinicCode, order.clinicOrderId, 1_000)
          : undefined;
      return { order, twin, history: staging.orderHistory(id) };
    }),
    orders: built.orders.map((id) => ({ detail: orderDetail(store, id), source: orderSource(store, id) })),
  };
}

type RawRow = Record<string, unknown>;
const rawRows = (store: Store) =>
  store.db
    .prepare(
      `SELECT id, batch_id, position, clinic_code, clinic_order_id, body, problems, provenance, source,
         compacted_at, order_id,
         length(coalesce(clinic_code, '')) + length(coalesce(clinic_order_id, '')) + length(body) + length(problems)
           + length(provenance) + length(source) + length(coalesce(compacted_at, '')) AS textBytes
       FROM staged_orders ORDER BY id`,
    )
    .all() as RawRow[];

describe('compacted staged rows', () => {
  it('are small, and every reader answers as it did for the older compacted form, which still reads', async () => {
    const built = await build();
    const now = copyOf(built);
    const before = copyOf(built);
    const older = copyOf(built);
    const expected = readers(before, built);

    // Today's retention: the five finished orders' copies dropped, the tracked one and the staged row kept.
    expect(await applyRetention(now)).toMatchObject({ compacted: 5 });
    const compactedIds = now.db
      .prepare('SELECT id FROM staged_orders WHERE compacted_at IS NOT NULL ORDER BY id')
      .pluck()
      .all() as number[];
    expect(compactedIds).toHaveLength(5);
    // The same rows compacted as the earlier code did.
    compactAsBefore(older.db, compactedIds, AT.toISOString());

    const rowsBefore = rawRows(before);
    const oldRows = rawRows(older);
    const newRows = rawRows(now);
    for (const id of compactedIds) {
      const row = newRows.find((r) => r.id === id)!;
      const old = oldRows.find((r) => r.id === id)!;
      const kept = rowsBefore.find((r) => r.id === id)!;
      const hl7 = row.batch_id === built.hl7;
      // Nothing it can be told from its order or its batch: no clinic code, no texts, no file name, the day.
      expect(row).toMatchObject({
        clinic_code: null,
        clinic_order_id: kept.clinic_order_id,
        body: '',
        problems: '',
        provenance: '',
        source: expect.stringMatching(hl7 ? /^\{"message":\d+\}$/ : /^\{"rows":\[\d+(,\d+)*\]\}$/) as string,
        compacted_at: AT.toISOString().slice(0, 10),
      });
      // Smaller than the older form by its clinic code, the file name, the texts' and the time's bytes.
      const saved = (old.textBytes as number) - (row.textBytes as number);
      expect(saved).toBeGreaterThanOrEqual((kept.clinic_code as string).length + 'messages.hl7'.length + 11 + 14);
    }
    // Rows that keep their copies are untouched.
    expect(newRows.filter((r) => !compactedIds.includes(r.id as number))).toEqual(
      rowsBefore.filter((r) => !compactedIds.includes(r.id as number)),
    );

    // Every reader says the same of both forms ...
    const answers = readers(now, built);
    expect(answers).toEqual(readers(older, built));
    // ... and what compaction keeps is what was read before it: identity, position, lines, file, edited.
    for (const [index, entry] of answers.staged.entries()) {
      const was = expected.staged[index]!.order;
      expect(entry.order).toMatchObject({
        clinicCode: was.clinicCode,
        clinicOrderId: was.clinicOrderId,
        position: was.position,
        state: was.state,
        orderId: was.orderId,
        editedAt: was.editedAt,
      });
      const { records: _records, hl7: _hl7, ...located } = was.source;
      expect(entry.order.source).toEqual(compactedIds.includes(was.id) ? located : was.source);
      expect(entry.twin).toEqual(expected.staged[index]!.twin);
      expect(entry.history).toEqual(expected.staged[index]!.history);
    }
    for (const [index, entry] of answers.orders.entries()) {
      const was = expected.orders[index]!.detail!;
      // The tracked order keeps its copy; the others lose the text and with it an HL7 message's control id (as
      // compaction did before).
      const open = index === 2;
      expect(entry.detail!.origin).toEqual(
        open
          ? was.origin
          : { ...was.origin, sourceKept: false, ...(was.origin.format === 'hl7' ? { controlId: null } : {}) },
      );
    }
    expect(answers.csv.counts).toEqual(expected.csv.counts);
    expect(answers.csv.page.orders.map((o) => [o.clinicCode, o.clinicOrderId, o.rows, o.body])).toEqual(
      expected.csv.page.orders.map((o) => [o.clinicCode, o.clinicOrderId, o.rows, o.body]),
    );
    expect(answers.hl7.page.orders.map((o) => [o.clinicCode, o.clinicOrderId, o.message])).toEqual(
      expected.hl7.page.orders.map((o) => [o.clinicCode, o.clinicOrderId, o.message]),
    );

    // A later run rewrites the older rows in the smaller form (their batches are walked again: nothing is counted
    // as compacted, no copies were left to drop) and the stores then hold the same rows.
    const later = await applyRetention(older);
    expect(later).toMatchObject({ compacted: 0 });
    expect(rawRows(older)).toEqual(newRows);
    expect(readers(older, built)).toEqual(answers);
    expect(verifyAuditChain(now)).toMatchObject({ ok: true });
  });

  it("finds an order's compacted staged row through the identity index, not by reading its batch", async () => {
    const built = await build();
    const store = copyOf(built);
    await applyRetention(store);
    expect(store.orders.origin(built.orders[1]!)?.staged).toMatchObject({ position: 2, sourceKept: false });
    const plan = (
      store.db.prepare(`EXPLAIN QUERY PLAN ${ORDER_ORIGIN_SQL}`).all(built.orders[1]) as Array<{ detail: string }>
    ).map((row) => row.detail);
    const where = plan.join('\n');
    expect(
      plan.filter((line) => /^SCAN|TEMP B-TREE/.test(line.trim())),
      where,
    ).toEqual([]);
    expect(
      plan.filter((line) =>
        line.includes('USING INDEX staged_orders_by_identity (batch_id=? AND clinic_code=? AND clinic_order_id=?)'),
      ),
      where,
    ).toHaveLength(2);
  });
});
