import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AttentionEvent } from '../../../main/core/outbox/attention.js';
import type { OutboxProgress } from '../../../main/core/outbox/progress.js';
import { Outbox } from '../../../main/core/outbox/outbox.js';
import type { OutboxTuning } from '../../../main/core/outbox/tuning.js';
import { NO_FAULTS } from '../../../sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import { startFaultProxy, type ProxyDecision, type ProxiedRequest, type RunningProxy } from './fault-proxy.js';
import { ENVIRONMENT_ID, sandboxClient, storeForSandbox, type OutboxTestStore } from './outbox-fixture.js';

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the ${what} has not started (use it inside a test)`);
  return value;
}

/**
 * A test file's sandbox (statuses frozen) behind a fault proxy: started before the file's tests, its faults and the
 * proxy's rule reset after each test, everything closed after them. `setUp` gives a fresh store and an outbox at
 * the file's tuning, sending to the sandbox or (given the proxy's URL) through the proxy.
 */
export function proxiedSandbox(tuning: Partial<OutboxTuning>) {
  let sandbox: RunningSandbox | undefined;
  let proxy: RunningProxy | undefined;
  let rule: (req: ProxiedRequest) => ProxyDecision = () => 'forward';
  const opened: OutboxTestStore[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 3_600_000 });
    proxy = await startFaultProxy(sandbox.apiUrl, (req) => rule(req));
  });
  afterEach(() => {
    sandbox?.setFaults(NO_FAULTS);
    rule = () => 'forward';
  });
  afterAll(async () => {
    for (const t of opened) t.close();
    await proxy?.close();
    await sandbox?.close();
  });

  return {
    get sandbox(): RunningSandbox {
      return started(sandbox, 'sandbox');
    },
    get proxy(): RunningProxy {
      return started(proxy, 'fault proxy');
    },
    /** What the proxy does with each request until the test ends. */
    setProxyRule(next: (req: ProxiedRequest) => ProxyDecision): void {
      rule = next;
    },
    setUp: (apiBaseUrl?: string, random?: () => number) => {
      const running = started(sandbox, 'sandbox');
      const t = storeForSandbox(running);
      opened.push(t);
      const attention: AttentionEvent[] = [];
      const progress: OutboxProgress[] = [];
      const outbox = new Outbox(
        {
          store: t.store,
          clientFor: () => sandboxClient(running, { apiBaseUrl: apiBaseUrl ?? running.apiUrl }),
          onAttention: (e) => attention.push(e),
          onProgress: (p) => progress.push(p),
          ...(random ? { random } : {}),
        },
        tuning,
      );
      return { t, outbox, attention, progress };
    },
  };
}

/**
 * Runs the outbox to idle, cut off after `ms` (the faults a test guards against may go on for good: the run then
 * throws), and stops it either way.
 */
export async function runFor(outbox: Outbox, ms = 4_000) {
  try {
    return await outbox.runUntilIdle(ENVIRONMENT_ID, { signal: AbortSignal.timeout(ms) });
  } finally {
    await outbox.stop();
  }
}
