import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from '../../main/core/outbox/outbox.js';
import type { TokenSource } from '../../main/core/service/client.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import {
  ENVIRONMENT_ID,
  allOrders,
  enqueue,
  sampleOrders,
  sandboxClient,
  storeForSandbox,
  type OutboxTestStore,
} from './support/outbox-fixture.js';

/**
 * A token that cannot go in a header (docs/security.md, finding 59): Node refuses to make the request, which threw
 * out of the client, and the outbox took that for a bug in the middle of a send: every create in doubt ("internal
 * error"), looked up for ever with the same throw, no attention. Nothing was sent, and now it says so.
 */

const UNSENT = /^could not reach the service: .*\(ERR_INVALID_CHAR\)$/;
let sandbox: RunningSandbox;
const opened: OutboxTestStore[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
});
afterAll(async () => {
  for (const t of opened) t.close();
  await sandbox?.close();
});

describe('an access token with a line break in it', () => {
  it('leaves each create unsent and retryable, never in doubt, and the service unavailable', async () => {
    const tokens: TokenSource = {
      getAccessToken: () => Promise.resolve('at-1\r\nX-Injected: 1'),
      refresh: () => Promise.resolve(true),
    };
    const t = storeForSandbox(sandbox);
    opened.push(t);
    const outbox = new Outbox(
      { store: t.store, clientFor: () => sandboxClient(sandbox, { tokens }) },
      { concurrency: 2, ratePerSecond: 50, baseDelayMs: 10, maxDelayMs: 50, breakerThreshold: 3 },
    );
    enqueue(t, sampleOrders('HEADER', 4));
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    await outbox.stop();

    expect(result.state).toBe('service-unavailable');
    const orders = allOrders(t.store);
    expect(orders.map((order) => order.state)).toEqual(['queued', 'queued', 'queued', 'queued']);
    const tried = orders.filter((order) => order.attempts > 0);
    expect(tried.length).toBeGreaterThan(0);
    for (const order of tried) {
      expect(order.lastError).toMatchObject({ kind: 'retryable', message: expect.stringMatching(UNSENT) as unknown });
    }
    expect(result.message).toMatch(UNSENT);
    expect(sandbox.requestCount()).toBe(0);
  });
});
