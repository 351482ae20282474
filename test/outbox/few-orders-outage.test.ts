import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A service that cannot be reached at all (connection refused; a certificate refused is the same: nothing sent)
 * while fewer orders than the breaker's threshold are queued. Each create's repeats counted once (the poison rule),
 * so two orders never made five failures: no outage banner, no "service unavailable", only each order retrying,
 * however long it lasted. A create that was never sent cannot be its body's fault, so each such failure counts.
 */

const THRESHOLD = 5;
const fixture = proxiedSandbox({
  concurrency: 2,
  ratePerSecond: 200,
  baseDelayMs: 5,
  maxDelayMs: 20,
  maxAttempts: 3,
  breakerThreshold: THRESHOLD,
  breakerCooldownMs: 50,
  reconcileDelayMs: 5,
});

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

describe('an unreachable service with fewer orders than the breaker threshold', () => {
  it('two orders refused a connection: the outage is said once and sending stops, both kept queued', async () => {
    const { t, outbox, attention } = fixture.setUp(await closedPortUrl());
    const ids = enqueue(t, sampleOrders('FEW-DOWN', 2));
    const attemptsOf = () => ids.flatMap((id) => t.store.attempts.list(id));
    // Before, this never blocked: stop it once the orders have failed far more often than the threshold.
    const enough = new AbortController();
    const watch = (async () => {
      while (!enough.signal.aborted && attemptsOf().length <= THRESHOLD * 4) await delay(20);
      enough.abort();
    })();
    const result = await outbox
      .runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true, signal: enough.signal })
      .catch((err: unknown) => ({ outcome: `aborted: ${String(err)}` }));
    const attemptsWhenBlocked = attemptsOf().length;
    enough.abort();
    await watch;
    await outbox.stop();
    expect(result).toMatchObject({ outcome: 'blocked', state: 'service-unavailable' });
    expect(attention.map((e) => e.kind)).toEqual(['service-unavailable']);
    expect(attention[0]?.message).toMatch(/could not reach|connect/i);
    for (const id of ids) {
      expect(t.store.orders.get(id)?.state).toBe('queued');
      expect(t.store.outboxQueue.retryMemory(id)?.failures ?? 0).toBe(0);
    }
    // Each create refused counts: the threshold's failures (and those already in flight) open it.
    expect(attemptsWhenBlocked).toBeLessThanOrEqual(THRESHOLD + 2);
  });
});
