import { afterEach, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { Outbox } from '../outbox/outbox.js';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import type { Store } from '../store/store.js';
import { LOCAL, removeDir } from '../store/testing/store-fixtures.js';
import { requestCancel } from './cancel-request.js';
import { StatusPoller } from './status-poller.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';

/**
 * A service that takes a cancel (200, the order still "Waiting Clinical Check") and dispatches the order anyway:
 * the real outbox sends the cancel and the real poller reads the status, both over loopback from a raw server.
 */

let server: HostileServer | undefined;
let store: Store | undefined;
let dataDir: string | undefined;
let outbox: Outbox | undefined;
let poller: StatusPoller | undefined;
afterEach(async () => {
  await poller?.close();
  await outbox?.stop();
  store?.close();
  if (dataDir) removeDir(dataDir);
  await server?.close();
  server = store = dataDir = outbox = poller = undefined;
});

it('a cancel answered 200 that the service then dispatches anyway ends cancel_refused, saying so, and is no longer watched', async () => {
  const world = storeWithCreatedOrder();
  ({ store, dataDir } = world);
  const { store: s, id, order } = world;
  expect(requestCancel(s, [id], 'Prescriber withdrew it')[0]).toMatchObject({ outcome: 'cancel-requested' });

  const record = (orderStatus: string, extra: Record<string, string> = {}) =>
    JSON.stringify({ clinicOrderId: order.clinicOrderId, pharmacyOrderId: '9001', orderStatus, ...extra });
  let dispatched = false;
  server = await startHostileServer((socket, request) => {
    const answer = request.target.startsWith('/api/v2/Order/cancel')
      ? record('Waiting Clinical Check')
      : request.target.startsWith('/api/v2/Order/status-date-range')
        ? '[]'
        : `[${record(dispatched ? 'Prescription Dispatched' : 'Waiting Clinical Check', dispatched ? { trackingId: 'RM123456785GB' } : {})}]`;
    answerWith(200, answer, { 'content-type': 'application/json' })(socket, request);
  });
  const client = rawServerClient(server.url);

  outbox = new Outbox(
    { store: s, clientFor: () => client },
    { baseDelayMs: 10, maxDelayMs: 100, reconcileDelayMs: 10 },
  );
  expect((await outbox.runUntilIdle(LOCAL.id)).outcome).toBe('idle');
  expect(s.orders.get(id)?.state).toBe('cancel_sent');

  poller = new StatusPoller({ store: s, clientFor: () => client }, { minIntervalMs: 30, ratePerSecond: 100 });
  const environmentId = LOCAL.id;
  // Still waiting: the cancel may yet land, so the order stays cancel_sent and watched.
  await poller.refresh(environmentId);
  expect(s.orders.get(id)).toMatchObject({ state: 'cancel_sent', remoteStatus: 'Waiting Clinical Check' });

  dispatched = true;
  await poller.refresh(environmentId);
  const after = s.orders.get(id)!;
  expect(after).toMatchObject({ state: 'cancel_refused', remoteStatus: 'Prescription Dispatched' });
  expect(after.lastError?.message).toBe(
    'the service took the cancel, but the order went on to "Prescription Dispatched": it was not cancelled',
  );
  expect(s.cancellations.list(id)).toEqual([
    expect.objectContaining({ state: 'refused', resultMessage: after.lastError?.message }),
  ]);
  expect(s.audit.forOrder(id).map((entry) => entry.action)).toEqual(
    expect.arrayContaining(['order.cancel-sent', 'order.cancel-refused']),
  );

  // Not watched any more: another round asks nothing about it.
  const asked = server.requests.length;
  await poller.refresh(environmentId);
  expect(server.requests.slice(asked).filter((r) => r.target.includes('status-with-clinic-code'))).toEqual([]);
  expect(verifyAuditChain(s)).toMatchObject({ ok: true });
});
