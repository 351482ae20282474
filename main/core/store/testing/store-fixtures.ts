import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toWireJson } from '../../../../shared/wire-json.js';
import { sampleCreateWithClinic } from '../../../../test/support/orders.js';
import { presetEnvironments } from '../../environments/presets.js';
import type { NewOrder } from '../orders-repo.js';
import { openStore, type Store } from '../store.js';

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
