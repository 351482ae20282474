import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { z } from 'zod';
import { createWithClinicV1Schema } from '../../shared/orders.js';
import { parseWireJson, toWireJson } from '../../shared/wire-json.js';
import type { NewOrder } from '../core/store/orders-repo.js';
import { enqueueOrders, type Store } from '../core/store/store.js';
import { InputError } from './cli-errors.js';

/**
 * `import FILE` until the importer (main/core/importing/) takes over: a JSON file holding an array of
 * create-with-clinic v1 bodies. Each is checked with the shared schema; valid ones are staged as one batch in
 * `ready` (waiting for `accept`), exactly as they will be sent. Invalid ones are reported with their position
 * and field and not staged (the staging table for problems comes with the importer).
 */

export interface StagedBatch {
  batchId: number;
  /** Orders in the file. */
  orders: number;
  valid: number;
  invalid: number;
  problems: Array<{ index: number; field: string; message: string }>;
}

type V1 = z.output<typeof createWithClinicV1Schema>;

export function stageJsonBatch(store: Store, environmentId: string, file: string): StagedBatch {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    // Lossless: an 18-digit dm+d code stays exactly as written.
    parsed = parseWireJson(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new InputError(`${file}: is not JSON`);
  }
  if (!Array.isArray(parsed)) throw new InputError(`${file}: must hold a JSON array of create-with-clinic orders`);

  const problems: StagedBatch['problems'] = [];
  const staged: NewOrder[] = [];
  const seen = new Map<string, number>();
  parsed.forEach((entry, index) => {
    const checked = createWithClinicV1Schema.safeParse(entry);
    if (!checked.success) {
      for (const issue of checked.error.issues) {
        problems.push({ index, field: issue.path.map(String).join('.') || '(order)', message: issue.message });
      }
      return;
    }
    const body: V1 = checked.data;
    const clinicCode = body.clinicInformation.clinicCode;
    const clinicOrderId = body.prescription.clinicOrderId;
    const key = JSON.stringify([clinicCode, clinicOrderId]);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problems.push({
        index,
        field: 'prescription.clinicOrderId',
        message: `${clinicOrderId} of clinic ${clinicCode} is already order ${earlier + 1} of this file`,
      });
      return;
    }
    const accepted = store.orders.findAccepted(environmentId, clinicCode, clinicOrderId);
    if (accepted) {
      problems.push({
        index,
        field: 'prescription.clinicOrderId',
        message: `${clinicOrderId} of clinic ${clinicCode} is already in the outbox (order ${accepted.id}, ${accepted.state})`,
      });
      return;
    }
    seen.set(key, index);
    staged.push({
      clinicCode,
      clinicOrderId,
      route: 'v1',
      requestBody: toWireJson(body),
      items: body.prescribedItems.map((item) => ({
        dmdCode: item.dmdCode,
        productId: item.productId ?? null,
        medication: item.medication,
        quantity: item.quantity,
      })),
      state: 'ready',
    });
  });

  const invalid = new Set(problems.map((p) => p.index)).size;
  const batchId = store.inTransaction(() => {
    const batch = store.batches.create({
      environmentId,
      sourceFileName: basename(file).slice(0, 255) || 'orders.json',
      kind: 'json',
      rowCount: parsed.length,
      invalidCount: invalid,
    });
    enqueueOrders(store, batch.id, staged, {
      actor: 'user',
      action: 'batch.imported',
      details: {
        fileName: basename(file).slice(0, 255),
        fileKind: 'json',
        rowCount: parsed.length,
        invalidCount: invalid,
      },
    });
    return batch.id;
  });
  return { batchId, orders: parsed.length, valid: staged.length, invalid, problems };
}
