import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NO_FAULTS } from '../../../sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import { sandboxServiceClient } from '../../../test/support/sandbox-client.js';
import type { Logger } from '../platform/logger.js';
import type { OrderServiceClient } from './client.js';

// Cancelling a read in flight through its signal, against the real sandbox over loopback: the request is
// destroyed at once (not when the service would have answered), nothing more is sent, and the outcome is the
// distinct `cancelled` kind, logged as such and never as a failed call.

/** Far longer than any test waits: a call still waiting for it would fail the test by its time limit. */
const SLOW_MS = 30_000;
const PARACETAMOL = { dmdCode: '322236009' };

let sandbox: RunningSandbox;
let client: OrderServiceClient;
const lines: Array<{ level: 'info' | 'warn' | 'error'; message: string; outcome: unknown }> = [];
const logger: Logger = {
  info: (message, fields) => lines.push({ level: 'info', message, outcome: fields?.outcome }),
  warn: (message, fields) => lines.push({ level: 'warn', message, outcome: fields?.outcome }),
  error: (message, fields) => lines.push({ level: 'error', message, outcome: fields?.outcome }),
};

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  client = sandboxServiceClient(sandbox, { timeoutMs: 60_000, logger });
  // Signed in up front, so the slow call below is the only request the sandbox sees.
  expect((await client.courierPriceList()).ok).toBe(true);
  lines.length = 0;
});

afterEach(() => {
  sandbox.setFaults(NO_FAULTS);
  lines.length = 0;
});

afterAll(async () => {
  await sandbox?.close();
});

describe('cancelling a call through its signal', () => {
  it('destroys the request in flight at once: cancelled, sent, and nothing after it', { timeout: 20_000 }, async () => {
    sandbox.setFaults({ latencyMs: SLOW_MS });
    const before = sandbox.requestCount();
    const controller = new AbortController();
    const call = client.stockCheck(PARACETAMOL, { signal: controller.signal });
    // The sandbox has the request and sits on it for SLOW_MS.
    await expect.poll(() => sandbox.requestCount(), { timeout: 10_000 }).toBe(before + 1);

    const abortedAt = performance.now();
    controller.abort();
    const outcome = await call;
    const waitedMs = performance.now() - abortedAt;

    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: 'cancelled', sent: true, message: 'cancelled while waiting for the answer' },
      meta: { operation: 'stockCheck', attempts: 1 },
    });
    expect(outcome.meta.status).toBeUndefined();
    // Ended by the cancel, not by the service: far sooner than its answer could have come.
    expect(waitedMs).toBeLessThan(SLOW_MS / 3);
    expect(sandbox.requestCount()).toBe(before + 1);
    expect(lines).toEqual([{ level: 'info', message: 'order service call cancelled', outcome: 'cancelled' }]);
  });

  it('sends nothing when the signal has already aborted', async () => {
    const before = sandbox.requestCount();
    const controller = new AbortController();
    controller.abort();
    const outcome = await client.searchProducts('paracetamol', { signal: controller.signal });
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: 'cancelled', sent: false, message: 'cancelled before it was sent' },
      meta: { operation: 'searchProducts', attempts: 0 },
    });
    expect(sandbox.requestCount()).toBe(before);
  });

  it('leaves a call whose signal never aborts exactly as it would be without one', async () => {
    const controller = new AbortController();
    const withSignal = await client.priceCheck(PARACETAMOL, 2, { signal: controller.signal });
    const without = await client.priceCheck(PARACETAMOL, 2);
    expect(withSignal.ok && without.ok).toBe(true);
    if (!withSignal.ok || !without.ok) return;
    expect(withSignal.value).toEqual(without.value);
    // Aborting after the answer came changes nothing (the exchange let go of the signal when it settled).
    controller.abort();
    expect(withSignal).toMatchObject({ ok: true, meta: { status: 200, attempts: 1 } });
    expect(lines.map((line) => line.outcome)).toEqual(['ok', 'ok']);
  });
});
