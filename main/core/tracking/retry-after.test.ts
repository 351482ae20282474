import { afterEach, expect, it } from 'vitest';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import type { Store } from '../store/store.js';
import { LOCAL, removeDir } from '../store/testing/store-fixtures.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';
import { StatusPoller } from './status-poller.js';

/**
 * A service that answers the poller's lookups 429 with `Retry-After: 1`. Before, the poller came back at its own
 * backoff, from its base interval up (30 ms, 60 ms, 120 ms…), however long it was asked to wait; now never sooner
 * than asked. Real store, real client and poller (timer-driven), over loopback from a raw server.
 */

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

it("waits as long as a 429's Retry-After asks before looking again", async () => {
  ({ store, dataDir } = storeWithCreatedOrder());
  const asked: number[] = [];
  server = await startHostileServer((socket, request) => {
    asked.push(performance.now());
    const body = JSON.stringify({ error: 'Too Many Requests', status: 429 });
    answerWith(429, body, { 'content-type': 'application/json', 'retry-after': '1' })(socket, request);
  });
  const client = rawServerClient(server.url);
  poller = new StatusPoller({ store, clientFor: () => client }, { minIntervalMs: 30, ratePerSecond: 100 });
  poller.start(LOCAL.id);

  // Three lookups, however long a loaded machine takes to make them; before, they came 30 and 60 ms apart.
  const deadline = performance.now() + 15_000;
  while (asked.length < 3 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(asked.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < asked.length; i += 1) expect(asked[i]! - asked[i - 1]!).toBeGreaterThanOrEqual(990);
});
