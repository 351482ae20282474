import { describe, expect, it } from 'vitest';
import { pollDeviceGrant, type PollReply } from './device-polling.js';

/** A clock that only moves when the loop sleeps, and a record of every wait. */
function fakeTime(start = 1_000_000) {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleeps,
    sleep: (ms: number) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

function scripted(replies: Array<PollReply<string>>) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    poll: () => {
      const reply = replies[calls];
      calls += 1;
      if (!reply) throw new Error('polled more often than scripted');
      return Promise.resolve(reply);
    },
  };
}

const never = new AbortController().signal;

describe('pollDeviceGrant', () => {
  it('waits the interval before every poll until tokens arrive', async () => {
    const time = fakeTime();
    const server = scripted([{ kind: 'pending' }, { kind: 'pending' }, { kind: 'tokens', tokens: 'T' }]);
    const outcome = await pollDeviceGrant({
      ...server,
      intervalSeconds: 2,
      expiresAt: time.now() + 60_000,
      now: time.now,
      sleep: time.sleep,
      signal: never,
    });
    expect(outcome).toEqual({ outcome: 'signed-in', tokens: 'T' });
    expect(time.sleeps).toEqual([2000, 2000, 2000]);
  });

  it('adds 5 seconds to the interval on every slow_down, for all later polls', async () => {
    const time = fakeTime();
    const server = scripted([
      { kind: 'slow-down' },
      { kind: 'pending' },
      { kind: 'slow-down' },
      { kind: 'tokens', tokens: 'T' },
    ]);
    await pollDeviceGrant({
      ...server,
      intervalSeconds: 1,
      expiresAt: time.now() + 600_000,
      now: time.now,
      sleep: time.sleep,
      signal: never,
    });
    expect(time.sleeps).toEqual([1000, 6000, 6000, 11000]);
  });

  it('stops at expiry without polling past it', async () => {
    const time = fakeTime();
    const server = scripted([{ kind: 'pending' }, { kind: 'pending' }]);
    const outcome = await pollDeviceGrant({
      ...server,
      intervalSeconds: 5,
      expiresAt: time.now() + 12_000,
      now: time.now,
      sleep: time.sleep,
      signal: never,
    });
    expect(outcome).toEqual({ outcome: 'expired' });
    expect(server.calls).toBe(2);
    expect(time.sleeps).toEqual([5000, 5000, 2000]);
  });

  it('passes on the server saying denied or expired', async () => {
    for (const [reply, outcome] of [
      [{ kind: 'denied' }, 'denied'],
      [{ kind: 'expired' }, 'expired'],
    ] as const) {
      const time = fakeTime();
      const result = await pollDeviceGrant({
        ...scripted([{ kind: 'pending' }, reply]),
        intervalSeconds: 1,
        expiresAt: time.now() + 60_000,
        now: time.now,
        sleep: time.sleep,
        signal: never,
      });
      expect(result).toEqual({ outcome });
    }
  });

  it('retries a few network failures, but gives up on a refusal at once', async () => {
    const time = fakeTime();
    const flaky = scripted([
      { kind: 'failed', message: 'offline', transient: true },
      { kind: 'failed', message: 'offline', transient: true },
      { kind: 'tokens', tokens: 'T' },
    ]);
    const base = { intervalSeconds: 1, now: time.now, sleep: time.sleep, signal: never };
    expect(await pollDeviceGrant({ ...flaky, ...base, expiresAt: time.now() + 60_000 })).toMatchObject({
      outcome: 'signed-in',
    });

    const down = scripted(
      Array.from({ length: 3 }, () => ({ kind: 'failed', message: 'offline', transient: true }) as const),
    );
    expect(
      await pollDeviceGrant({ ...down, ...base, expiresAt: time.now() + 60_000, maxTransientFailures: 2 }),
    ).toEqual({ outcome: 'failed', message: 'offline' });
    expect(down.calls).toBe(3);

    const refused = scripted([{ kind: 'failed', message: 'invalid_client', transient: false }]);
    expect(await pollDeviceGrant({ ...refused, ...base, expiresAt: time.now() + 60_000 })).toEqual({
      outcome: 'failed',
      message: 'invalid_client',
    });
  });

  it('returns cancelled with a poll still in flight, and ignores its answer', async () => {
    const controller = new AbortController();
    let answer: (reply: PollReply<string>) => void = () => {};
    const outcome = pollDeviceGrant({
      poll: () =>
        new Promise<PollReply<string>>((resolve) => {
          answer = resolve;
          controller.abort();
        }),
      intervalSeconds: 0,
      expiresAt: Date.now() + 60_000,
      now: Date.now,
      signal: controller.signal,
    });
    expect(await outcome).toEqual({ outcome: 'cancelled' });
    answer({ kind: 'tokens', tokens: 'late' });
  });

  it('returns cancelled while waiting between polls', async () => {
    const controller = new AbortController();
    const outcome = pollDeviceGrant({
      poll: () => Promise.resolve({ kind: 'pending' }),
      intervalSeconds: 3600,
      expiresAt: Date.now() + 7_200_000,
      now: Date.now,
      signal: controller.signal,
    });
    controller.abort();
    expect(await outcome).toEqual({ outcome: 'cancelled' });
  });
});
