import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toWireJson } from '../../../../shared/wire-json.js';
import { sampleCreateWithClinic } from '../../../../test/support/orders.js';
import { presetEnvironments } from '../../environments/presets.js';
import { migrate } from '../migrations/index.js';
import { openDatabase } from '../open-database.js';
import type { NewOrder } from '../orders-repo.js';
import { openStore, STORE_FILE, type Store } from '../store.js';

/** Shared set-up for the store's tests and bench: temp data directories, a clock, a profile, sample orders. */

export function tempDataDir(prefix = 'rx-store-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A clock the test moves by hand. */
export function manualClock(start = '2025-03-03T09:00:00.000Z') {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current = new Date(current.getTime() + ms);
    },
  };
}

export const LOCAL = presetEnvironments()[0]!;

/** A v1 order as the importer would hand it over: the wire body and its items. */
export function sampleOrder(
  overrides: { clinicCode?: string; clinicOrderId?: string; dmdCode?: string; state?: NewOrder['state'] } = {},
): NewOrder {
  const body = sampleCreateWithClinic(overrides);
  return {
    clinicCode: body.clinicInformation.clinicCode,
    clinicOrderId: body.prescription.clinicOrderId,
    route: 'v1',
    requestBody: toWireJson(body),
    items: body.prescribedItems.map((item) => ({
      dmdCode: String(item.dmdCode),
      productId: item.productId ?? null,
      medication: item.medication,
      quantity: item.quantity,
    })),
    ...(overrides.state ? { state: overrides.state } : {}),
  };
}

/** A store in a fresh temp directory with the local sandbox profile and one batch. */
export function storeWithBatch(now?: () => Date): { store: Store; dataDir: string; batchId: number } {
  const dataDir = tempDataDir();
  const store = openStore({ dataDir, ...(now ? { now } : {}) });
  store.environments.upsert(LOCAL);
  const batch = store.batches.create({
    environmentId: LOCAL.id,
    sourceFileName: 'orders.csv',
    kind: 'csv',
    rowCount: 10,
    invalidCount: 0,
  });
  return { store, dataDir, batchId: batch.id };
}

/**
 * A store file as the release at schema `version` left it, holding the local sandbox's environment (written as
 * rows, since today's repositories may need later columns): for upgrade tests of a later migration.
 */
export function storeAtVersion(dataDir: string, version: number): void {
  const db = openDatabase(join(dataDir, STORE_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  migrate(db, { target: version });
  db.prepare(
    `INSERT INTO environments (id, name, kind, api_base_url, issuer, client_id, grant_type, scopes,
       create_with_clinic_version, request_timeout_ms, code_lists, concurrency, rate_per_second, poll_interval_ms,
       created_at, updated_at)
     VALUES (?, ?, 'local-sandbox', ?, ?, '', 'client_credentials', '[]', 'v1', 30000, '{}', 3, 2.5, 90000, ?, ?)`,
  ).run(LOCAL.id, LOCAL.name, LOCAL.apiBaseUrl, LOCAL.issuer, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
  db.close();
}
