import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError } from '../../../shared/errors.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';
import { templateCsv, uniqueOrder } from './testing/staging-fixtures.js';

/**
 * docs/security.md, finding 16: a key named `__proto__` in an order body (a whole-body edit from the page, or a
 * clinic's JSON file) became a cell path of the batch's edit history, and undoing the change walked that path
 * through the inherited prototype and wrote the value onto Object.prototype of the core's process: every object
 * of the core then had that property. Through the contract (the door every transport uses), real SQLite.
 */

const polluted = () => ({}) as Record<string, unknown>;
let opened: TestCore | undefined;

afterEach(async () => {
  // The old code pollutes the test's own process: put it back so one failure does not spread to other tests.
  delete (Object.prototype as Record<string, unknown>).pwned;
  await opened?.close();
  opened = undefined;
});

async function stagedBatch(name: string, content: string) {
  opened = await openTestCore('proto-keys');
  const path = join(opened.dir, name);
  writeFileSync(path, content);
  const imported = await opened.api.call('import.file', { environmentId: LOCAL_SANDBOX_ID, path });
  if (imported.status !== 'staged') throw new Error(`expected a staged batch, got ${imported.status}`);
  const page = await opened.api.call('batches.get', { batchId: imported.batchId });
  return { api: opened.api, batchId: imported.batchId, order: page.orders[0]! };
}

/** The body's text with `"__proto__": {"pwned": "yes"}` as the customer's first key (as JSON.parse keeps it: own). */
function withProtoKey(body: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(body).replace('"customer":{', '"customer":{"__proto__":{"pwned":"yes"},')) as Record<
    string,
    unknown
  >;
}

describe('keys named __proto__', () => {
  it('a whole-body edit holding one is refused at the door, naming where, and changes nothing', async () => {
    const { api, order } = await stagedBatch('orders.csv', templateCsv([uniqueOrder()]));
    const evil = withProtoKey(order.body);
    expect(Object.hasOwn(evil.customer as object, '__proto__')).toBe(true);

    const refused: unknown = await api
      .call('batches.editOrder', { stagedOrderId: order.id, body: evil })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ContractError);
    expect((refused as ContractError).toInfo()).toMatchObject({
      code: 'invalid-input',
      issues: [
        { path: 'body.customer.__proto__', message: 'a key named __proto__ is not accepted anywhere in a call' },
      ],
    });
    const after = await api.call('batches.get', { batchId: order.batchId });
    expect(after.orders[0]!.body).toEqual(order.body);
    expect(after.batch.undo).toBeNull();
    expect(polluted().pwned).toBeUndefined();
  });

  it('undo and redo of a step the old code recorded with such a cell never write onto Object.prototype', async () => {
    const { api, batchId, order } = await stagedBatch('orders.csv', templateCsv([uniqueOrder()]));
    // What the old door let in: a whole-body edit whose customer had a __proto__ key made this step (the stored
    // body itself never kept the key: the wire JSON writer drops it).
    opened!.core.services.store.stagedEdits.record(
      { batchId, kind: 'edit', field: null, at: new Date().toISOString() },
      [
        {
          stagedOrderId: order.id,
          path: 'customer.__proto__.pwned',
          oldValue: undefined,
          newValue: 'yes',
          oldOrigin: undefined,
          newOrigin: { kind: 'edited', at: new Date().toISOString() },
          cleared: [],
          raised: [],
        },
      ],
    );

    await api.call('batches.undo', { batchId });
    await api.call('batches.redo', { batchId });
    expect(polluted().pwned).toBeUndefined();
    // The redo put the value where the path names it, in the order's own customer, like any other cell.
    const again = (await api.call('batches.get', { batchId })).orders[0]!;
    expect(polluted().pwned).toBeUndefined();
    expect(again.state).toBe('staged');
  });
});
