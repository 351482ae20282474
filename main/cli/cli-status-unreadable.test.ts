import { afterEach, expect, it } from 'vitest';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  type Script,
  rawServerClient,
} from '../core/service/testing/hostile-server.js';
import type { Store } from '../core/store/store.js';
import { LOCAL, removeDir } from '../core/store/testing/store-fixtures.js';
import { storeWithCreatedOrder } from '../core/tracking/testing/tracking-fixtures.js';
import { StatusPoller } from '../core/tracking/status-poller.js';
import { refreshStoppedWords } from './commands/status.js';

/**
 * `rx-batch status --refresh` against a service whose status answers come back but cannot be read (a gateway's
 * sign-in page with a 200): it said "the service did not answer", sending the admin to look for an outage. It now
 * says the answers could not be read, with the last one's reason; silence still reads as no answer. The round comes
 * from the real poller and client over loopback, as the command gets it.
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

async function refreshAgainst(script: Script) {
  ({ store, dataDir } = storeWithCreatedOrder());
  server = await startHostileServer(script);
  const client = rawServerClient(server.url);
  poller = new StatusPoller({ store, clientFor: () => client }, { minIntervalMs: 30, ratePerSecond: 100 });
  return poller.refresh(LOCAL.id);
}

it('says the answers could not be read, naming the last reason', async () => {
  const page = '<!DOCTYPE html><html><head><title>Sign in to your account</title></head><body></body></html>';
  const round = await refreshAgainst(answerWith(200, page, { 'content-type': 'text/html' }));
  expect(round).toMatchObject({ stoppedBy: 'service-unavailable' });
  expect(refreshStoppedWords(LOCAL.id, round)).toBe(
    `${LOCAL.id}: the service's answers could not be read (the last: the service answered with a web page instead of its answer: "Sign in to your account"); statuses are as last seen`,
  );
});

it('names the failure when the service failed or did not answer', async () => {
  const failed = await refreshAgainst(
    answerWith(503, JSON.stringify({ error: 'Service Unavailable', status: 503 }), {
      'content-type': 'application/json',
    }),
  );
  expect(failed.unreadable).toBeUndefined();
  expect(refreshStoppedWords(LOCAL.id, failed)).toBe(
    `${LOCAL.id}: statuses could not be refreshed (the service failed (503): Service Unavailable); they are as last seen`,
  );
  await poller?.close();
  store?.close();
  if (dataDir) removeDir(dataDir);
  await server?.close();
  const silent = await refreshAgainst((socket) => socket.destroy());
  expect(silent).toMatchObject({
    stoppedBy: 'service-unavailable',
    failure: expect.stringMatching(/^the connection failed/) as unknown,
  });
  expect(
    refreshStoppedWords(LOCAL.id, { checked: 0, changed: [], dateRangeCalls: 0, stoppedBy: 'service-unavailable' }),
  ).toBe(`${LOCAL.id}: the service did not answer; statuses are as last seen`);
});
