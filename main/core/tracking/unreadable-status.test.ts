import { afterEach, expect, it, vi } from 'vitest';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import type { Store } from '../store/store.js';
import { LOCAL, removeDir } from '../store/testing/store-fixtures.js';
import { StatusPoller } from './status-poller.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';

/**
 * Status lookups answered with a 2xx that cannot be read (a single sign-on gateway's sign-in page with a 200, a
 * listing cut off on its way). The service, or something in front of it, answers, and asking again is answered the
 * same way: before, the poller took it for an outage and backed off for good, statuses frozen, no one told. Now
 * after `unreadableRounds` such rounds in a row the environment is reported once (`onServiceUnreadable`). Real store,
 * real client, over loopback from a raw server.
 */

const ROUNDS = 3;
const SIGN_IN_PAGE =
  '<!DOCTYPE html><html><head><title>Sign in to your account</title></head>' +
  '<body><form method="post" action="/login">Email <input name="loginfmt"></form></body></html>';

let server: HostileServer | undefined;
let store: Store | undefined;
let dataDir: string | undefined;
let poller: StatusPoller | undefined;
afterEach(async () => {
  await poller?.close();
  store?.close();
  if (dataDir) removeDir(dataDir);
  await server?.close();
  server = store = dataDir = poller = undefined;
});

for (const [what, body, contentType] of [
  ["a gateway's sign-in page with a 200", SIGN_IN_PAGE, 'text/html'],
  ['JSON cut off on the way', '[{"clinicOrderId":"UNREAD', 'application/json'],
] as const) {
  it(`${what}: told once after ${ROUNDS} rounds in a row, and again after the answers were readable`, async () => {
    const world = storeWithCreatedOrder();
    ({ store, dataDir } = world);
    const { store: s, id, order } = world;

    let readable = false;
    const record = JSON.stringify({
      clinicOrderId: order.clinicOrderId,
      pharmacyOrderId: '9001',
      orderStatus: 'Waiting Clinical Check',
    });
    server = await startHostileServer((socket, request) => {
      if (readable) {
        const answer = request.target.startsWith('/api/v2/Order/status-date-range') ? '[]' : `[${record}]`;
        return answerWith(200, answer, { 'content-type': 'application/json' })(socket, request);
      }
      answerWith(200, body, { 'content-type': contentType })(socket, request);
    });
    const client = rawServerClient(server.url);
    const told = vi.fn();
    poller = new StatusPoller(
      { store: s, clientFor: () => client, onServiceUnreadable: told },
      { minIntervalMs: 30, ratePerSecond: 100, unreadableRounds: ROUNDS },
    );

    for (let round = 1; round < ROUNDS; round += 1) await poller.refresh(LOCAL.id);
    expect(told).not.toHaveBeenCalled();
    await poller.refresh(LOCAL.id);
    expect(told).toHaveBeenCalledTimes(1);
    expect(told).toHaveBeenCalledWith(
      LOCAL.id,
      expect.stringMatching(/^The Order Service's answers to \d+ status lookups in a row could not be read/),
    );
    // Once per spell, not once per round.
    await poller.refresh(LOCAL.id);
    expect(told).toHaveBeenCalledTimes(1);
    expect(s.orders.get(id)).toMatchObject({ state: 'created', remoteStatus: null });

    readable = true;
    expect((await poller.refresh(LOCAL.id)).stoppedBy).toBeUndefined();
    expect(s.orders.get(id)?.remoteStatus).toBe('Waiting Clinical Check');
    readable = false;
    for (let round = 0; round < ROUNDS; round += 1) await poller.refresh(LOCAL.id);
    expect(told).toHaveBeenCalledTimes(2);
  });
}

it('an outage (the connection dropped, no answer) is not told as unreadable answers', async () => {
  const world = storeWithCreatedOrder();
  ({ store, dataDir } = world);
  const s = world.store;
  server = await startHostileServer((socket) => socket.destroy());
  const client = rawServerClient(server.url);
  const told = vi.fn();
  poller = new StatusPoller(
    { store: s, clientFor: () => client, onServiceUnreadable: told },
    { minIntervalMs: 30, ratePerSecond: 100, unreadableRounds: ROUNDS },
  );
  for (let round = 0; round <= ROUNDS; round += 1)
    expect((await poller.refresh(LOCAL.id)).stoppedBy).toBe('service-unavailable');
  expect(told).not.toHaveBeenCalled();
});
