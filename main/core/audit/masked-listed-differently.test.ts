import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { orderAttention } from '../outbox/attention.js';
import { enqueueOrders, type Store } from '../store/store.js';
import { manualClock, removeDir, sampleOrder, storeWithBatch } from '../store/testing/store-fixtures.js';
import { listedDifferently, listedDifferentlyNote, noteListedDifferently } from '../tracking/listed-differently.js';
import { toAttentionView } from '../views.js';
import { exportAuditLog } from './export-log.js';
import { maskIdentifierIn } from './mask-identifier.js';

/**
 * Finding 62: a service that lists our clinic order id in another case ("listed differently") had that spelling
 * quoted in full by masked audit exports and by the OS notification, which mask only the id as we wrote it.
 */

const OURS = 'RX-2025-000417';
const THEIRS = 'rx-2025-000417';

describe('a clinic order id the service quotes in another case', () => {
  let store: Store | undefined;
  let dataDir = '';
  afterEach(() => {
    store?.close();
    removeDir(dataDir);
    store = undefined;
  });

  function listedOrder() {
    const made = storeWithBatch(manualClock().now);
    ({ store, dataDir } = made);
    const [id] = enqueueOrders(made.store, made.batchId, [sampleOrder({ clinicOrderId: OURS })]);
    const order = made.store.orders.get(id!)!;
    const listed = listedDifferently([{ clinicOrderId: THEIRS, pharmacyOrderId: null }], order);
    expect(listed).toEqual({ clinicOrderId: THEIRS, pharmacyOrderId: null });
    expect(noteListedDifferently(made.store, order, listed!)).toBe(true);
    return made.store.orders.get(id!)!;
  }

  it('is masked in the masked audit export, CSV and JSON Lines, and kept in full when unmasked', async () => {
    listedOrder();
    for (const format of ['csv', 'jsonl'] as const) {
      const chunks: string[] = [];
      const out = new Writable({ write: (chunk: Buffer, _e, done) => void (chunks.push(chunk.toString()), done()) });
      await exportAuditLog(store!, out, { format });
      const text = chunks.join('');
      expect(text).toContain('listed-differently');
      expect(text.toLowerCase()).not.toContain(THEIRS);
      expect(text).toContain('***********417');
    }
    const chunks: string[] = [];
    const out = new Writable({ write: (chunk: Buffer, _e, done) => void (chunks.push(chunk.toString()), done()) });
    await exportAuditLog(store!, out, { format: 'csv', unmask: true });
    expect(chunks.join('')).toContain(THEIRS);
  });

  it('is masked in the notification, which the screen still gets in full', () => {
    const order = listedOrder();
    const view = toAttentionView(
      orderAttention(order, 'listed-differently', listedDifferentlyNote(order)!),
      new Date('2025-03-03T09:00:00Z'),
    );
    expect(view.message.toLowerCase()).not.toContain(THEIRS);
    expect(view.message).toContain('"***********417"');
    expect(view.order?.detail).toContain(THEIRS);
  });
});

describe('maskIdentifierIn', () => {
  it('takes every character of an id literally, in any case', () => {
    expect(maskIdentifierIn('id (a.b*c)+[1] and (A.B*C)+[1], not aXb', '(a.b*c)+[1]')).toBe(
      'id ********[1] and ********[1], not aXb',
    );
    expect(maskIdentifierIn('no id here', '')).toBe('no id here');
  });
});
