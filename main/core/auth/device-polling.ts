/**
 * The device grant's polling loop (RFC 8628 §3.4–3.5), apart from HTTP so its timing rules are plain to see and
 * test: wait `interval` before each poll, add 5 s on every `slow_down`, stop at expiry, on a final answer, or at
 * once when cancelled (an in-flight poll is abandoned, its answer ignored).
 */

export type PollReply<T> =
  | { kind: 'tokens'; tokens: T }
  | { kind: 'pending' }
  | { kind: 'slow-down' }
  | { kind: 'denied' }
  | { kind: 'expired' }
  | { kind: 'failed'; message: string; transient: boolean };

export type PollOutcome<T> =
  | { outcome: 'signed-in'; tokens: T }
  | { outcome: 'denied' }
  | { outcome: 'expired' }
  | { outcome: 'cancelled' }
  | { outcome: 'failed'; message: string };

export interface PollPlan<T> {
  poll(): Promise<PollReply<T>>;
  intervalSeconds: number;
  /** ms since epoch, on the `now` clock. */
  expiresAt: number;
  now(): number;
  signal: AbortSignal;
  /** Waits `ms`, returning early when `signal` aborts. Injected by tests to run without real waiting. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Network-level failures in a row tolerated before giving up (each is retried after the interval). */
  maxTransientFailures?: number;
}

export const SLOW_DOWN_STEP_SECONDS = 5;

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

const ABORTED = Symbol('aborted');

function untilAborted(signal: AbortSignal): Promise<typeof ABORTED> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
  });
}

export async function pollDeviceGrant<T>(plan: PollPlan<T>): Promise<PollOutcome<T>> {
  const sleep = plan.sleep ?? abortableSleep;
  const maxTransient = plan.maxTransientFailures ?? 3;
  const aborted = untilAborted(plan.signal);
  let intervalMs = Math.max(0, plan.intervalSeconds) * 1000;
  let transientFailures = 0;

  for (;;) {
    await sleep(Math.min(intervalMs, Math.max(0, plan.expiresAt - plan.now())), plan.signal);
    if (plan.signal.aborted) return { outcome: 'cancelled' };
    if (plan.now() >= plan.expiresAt) return { outcome: 'expired' };

    const reply = await Promise.race([plan.poll(), aborted]);
    if (reply === ABORTED || plan.signal.aborted) return { outcome: 'cancelled' };

    switch (reply.kind) {
      case 'tokens':
        return { outcome: 'signed-in', tokens: reply.tokens };
      case 'pending':
        transientFailures = 0;
        break;
      case 'slow-down':
        transientFailures = 0;
        intervalMs += SLOW_DOWN_STEP_SECONDS * 1000;
        break;
      case 'denied':
        return { outcome: 'denied' };
      case 'expired':
        return { outcome: 'expired' };
      case 'failed':
        transientFailures += 1;
        if (!reply.transient || transientFailures > maxTransient) return { outcome: 'failed', message: reply.message };
        break;
    }
  }
}
