import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeRde011 } from '../importing/rde-writer.js';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { MIGRATIONS } from './migrations/index.js';
import { openDatabase } from './open-database.js';
import { applyRetention } from './retention-runner.js';
import { openStore, STORE_FILE, type Store } from './store.js';
import {
  LOCAL,
  removeDir,
  sampleOrder,
  storeAtVersion,
  storeWithBatch,
  tempDataDir,
} from './testing/store-fixtures.js';
import { sampleCreateWithClinic } from '../../../test/support/orders.js';

/**
 * Migration 020 on a store written before it: its orders keep their text, and retention then packs the finished
 * ones, whether or not they came through staging (HL7 bodies with their own dictionary), losslessly.
 */

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) if (store.isOpen) store.close();
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe('packed request bodies on a store from before migration 020', () => {
  it('upgrades without touching a body, then packs the finished orders, v1 and HL7, and reads them back', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const before = MIGRATIONS.find((migration) => migration.name === 'packed-request-bodies')!.version - 1;
    storeAtVersion(dataDir, before);
    const db = openDatabase(join(dataDir, STORE_FILE));
    db.prepare(
      `INSERT INTO import_batches (id, environment_id, source_file_name, kind, row_count, invalid_count, created_at)
       VALUES (1, ?, 'old.csv', 'csv', 3, 0, '2025-01-01T00:00:00Z')`,
    ).run(LOCAL.id);
    const insert = db.prepare(
      `INSERT INTO orders (id, batch_id, environment_id, clinic_code, clinic_order_id, route, request_body, state,
         pharmacy_order_id, remote_status, created_at, updated_at)
       VALUES (?, 1, ?, 'CLINIC-A', ?, ?, ?, ?, ?, ?, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`,
    );
    const v1 = sampleOrder({ clinicOrderId: 'OLD-1' }).requestBody;
    const hl7 = writeRde011(sampleCreateWithClinic({ clinicOrderId: 'OLD-2' })).replace(/\r?\n?$/, '');
    insert.run(1, LOCAL.id, 'OLD-1', 'v1', v1, 'created', 101, 'Prescription Processed');
    insert.run(2, LOCAL.id, 'OLD-2', 'hl7', hl7, 'rejected', null, null);
    insert.run(3, LOCAL.id, 'OLD-3', 'v1', v1.replace('OLD-1', 'OLD-3'), 'in_doubt', null, null);
    db.prepare(
      `INSERT INTO status_history (order_id, status, observed_at) VALUES (1, 'Prescription Processed', '2025-01-02')`,
    ).run();
    db.close();

    const store = openStore({ dataDir });
    stores.push(store);
    const raw = () => store.db.prepare('SELECT id, request_body AS body FROM orders ORDER BY id').all();
    expect(raw()).toEqual([
      { id: 1, body: v1 },
      { id: 2, body: hl7 },
      { id: 3, body: v1.replace('OLD-1', 'OLD-3') },
    ]);
    // A step inside a caller's transaction (foreign keys enforced there, checked at its commit), then a run.
    const cutoff = store.retention.cutoff()!;
    expect(store.inTransaction(() => store.retention.packBodiesStep(cutoff, 0, 1))).toEqual({
      packed: 1,
      after: 1,
      more: true,
    });
    // A time not written as the store writes them (no time of day) is kept as it was (migration 23).
    expect(store.statusHistory.list(1)).toEqual([expect.objectContaining({ observedAt: '2025-01-02' })]);
    expect(await applyRetention(store)).toMatchObject({ bodiesPacked: 1, compacted: 0 });
    expect(raw()).toEqual([
      { id: 1, body: '*' },
      { id: 2, body: '*' },
      { id: 3, body: v1.replace('OLD-1', 'OLD-3') },
    ]);
    expect(store.orders.get(1)!.requestBody).toBe(v1);
    expect(store.orders.get(2)!.requestBody).toBe(hl7);
    expect(
      store.db.prepare('SELECT hex(substr(request_body_packed, 1, 1)) FROM orders WHERE id = 2').pluck().get(),
    ).toBe('02');
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });
  });

  it('packs on after the one-time VACUUM, which ran with its copy on disk while the store keeps temp data in memory', () => {
    const { store, dataDir } = storeWithBatch();
    stores.push(store);
    dirs.push(dataDir);
    const finished = (id: string) => {
      const [orderId] = store.orders.enqueue(1, [sampleOrder({ clinicOrderId: id })]);
      store.db
        .prepare(
          "UPDATE orders SET state = 'rejected', created_at = '2025-01-01T00:00:00Z', updated_at = '2025-01-01T00:00:00Z' WHERE id = ?",
        )
        .run(orderId);
    };
    ['V-1', 'V-2'].forEach(finished);
    const cutoff = store.retention.cutoff()!;
    const tempStore = () => store.db.pragma('temp_store', { simple: true });
    expect(tempStore()).toBe(2);
    expect(store.retention.packBodiesStep(cutoff, 0, 1)).toMatchObject({ packed: 1 });

    store.retention.switchToIncrementalVacuum();

    // The switch dropped the packing's temp table (temp_store changed twice): made again, not "no such table".
    expect(tempStore()).toBe(2);
    expect(store.retention.packBodiesStep(cutoff, 1, 1)).toMatchObject({ packed: 1 });
    expect(store.orders.get(2)!.requestBody).toBe(sampleOrder({ clinicOrderId: 'V-2' }).requestBody);
  });
});
