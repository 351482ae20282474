import { afterEach, expect, it } from 'vitest';
import type { OrderState } from '../core/store/order-state.js';
import { enqueueOrders } from '../core/store/store.js';
import { removeDir, sampleOrder, storeWithBatch } from '../core/store/testing/store-fixtures.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * `rx-batch cancel` of an order already cancelled or withdrawn names its state (the core's refusal, as the app shows
 * it) rather than saying no open order has that id; a cancel already requested or sent says so too.
 */

let dataDir: string | undefined;
afterEach(() => {
  if (dataDir) removeDir(dataDir);
  dataDir = undefined;
});

it('names the state of an order that cannot be cancelled again', async () => {
  const made = storeWithBatch();
  dataDir = made.dataDir;
  const { store } = made;
  const paths: Record<string, OrderState[]> = {
    'ORD-C': ['created', 'cancel_requested', 'cancel_sent', 'cancelled'],
    'ORD-W': ['withdrawn'],
    'ORD-S': ['created', 'cancel_requested', 'cancel_sent'],
    'ORD-R': ['created', 'cancel_requested'],
  };
  try {
    let pharmacyOrderId = 9000;
    for (const [clinicOrderId, states] of Object.entries(paths)) {
      const [id] = enqueueOrders(store, made.batchId, [sampleOrder({ clinicOrderId })]);
      let from: OrderState = 'queued';
      for (const to of states) {
        const fields = to === 'created' ? { pharmacyOrderId: ++pharmacyOrderId } : {};
        store.orders.transition(id!, [from], to, fields, {
          actor: 'submitter',
          action: `order.${to.replace('_', '-')}`,
        });
        from = to;
      }
    }
  } finally {
    store.close();
  }
  const cancel = (id: string) => runCliCaptured(['cancel', id, '--reason', 'duplicate', '--data-dir', dataDir!]);

  const expected: Record<string, RegExp> = {
    'ORD-C': /^ORD-C \(order \d+\): not cancelled: it is already cancelled$/m,
    'ORD-W': /^ORD-W \(order \d+\): not cancelled: it was already withdrawn$/m,
    'ORD-S': /^ORD-S \(order \d+\): not cancelled: a cancel request for it was already sent/m,
    'ORD-R': /^ORD-R \(order \d+\): not cancelled: a cancel request for it is already waiting to be sent/m,
  };
  for (const [id, line] of Object.entries(expected)) {
    const run = await cancel(id);
    expect(run.stdout + run.stderr).not.toContain('no open order');
    expect(run.stdout).toMatch(line);
    expect(run.code).toBe(1);
  }
});
