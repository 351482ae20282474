import { describe, expect, it } from 'vitest';
import { AdaptiveSchedule } from './adaptive-schedule.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('AdaptiveSchedule: sooner after a change, slower when nothing moves', () => {
  it('makes new orders due at once, then stretches the wait for each look that finds nothing new', () => {
    const c = clock();
    const schedule = new AdaptiveSchedule<number>({ minMs: 1_000, maxMs: 8_000, factor: 2 }, c.now);
    schedule.sync([1]);
    expect(schedule.due()).toEqual([1]);

    const waits: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      schedule.observed(1, false);
      waits.push(schedule.intervalOf(1)!);
    }
    expect(waits).toEqual([2_000, 4_000, 8_000, 8_000, 8_000]);
    expect(schedule.nextDueAt()).toBe(c.now() + 8_000);
    expect(schedule.due()).toEqual([]);
    c.advance(7_999);
    expect(schedule.due()).toEqual([]);
    c.advance(1);
    expect(schedule.due()).toEqual([1]);
  });

  it('goes back to the shortest wait as soon as an order changes', () => {
    const c = clock();
    const schedule = new AdaptiveSchedule<number>({ minMs: 500, maxMs: 60_000, factor: 3 }, c.now);
    schedule.sync([7]);
    schedule.observed(7, false);
    schedule.observed(7, false);
    expect(schedule.intervalOf(7)).toBe(4_500);
    schedule.observed(7, true);
    expect(schedule.intervalOf(7)).toBe(500);
    expect(schedule.nextDueAt()).toBe(c.now() + 500);
  });

  it('orders due work by how overdue it is, forgets settled orders, and can make everything due for a refresh', () => {
    const c = clock();
    const schedule = new AdaptiveSchedule<string>({ minMs: 100, maxMs: 1_000, factor: 2 }, c.now);
    schedule.sync(['a', 'b', 'c']);
    schedule.observed('a', false); // due in 200
    schedule.observed('b', true); // due in 100
    schedule.observed('c', false); // due in 200
    c.advance(250);
    expect(schedule.due()).toEqual(['b', 'a', 'c']);
    expect(schedule.due(1)).toEqual(['b']);

    schedule.sync(['a', 'd']);
    expect(schedule.size).toBe(2);
    expect(schedule.intervalOf('b')).toBeUndefined();
    schedule.observed('a', false);
    expect(schedule.due()).toEqual(['d']);
    schedule.makeAllDue();
    expect(schedule.due().sort()).toEqual(['a', 'd']);
    expect(schedule.intervalOf('a')).toBe(400);
  });

  it('refuses intervals that make no sense', () => {
    expect(() => new AdaptiveSchedule({ minMs: 0, maxMs: 1, factor: 2 }, Date.now)).toThrow(RangeError);
    expect(() => new AdaptiveSchedule({ minMs: 10, maxMs: 5, factor: 2 }, Date.now)).toThrow(RangeError);
    expect(() => new AdaptiveSchedule({ minMs: 10, maxMs: 50, factor: 0.5 }, Date.now)).toThrow(RangeError);
  });

  it('scales each wait to a new base, from its last look, within the new bounds', () => {
    let now = 0;
    const schedule = new AdaptiveSchedule({ minMs: 100, maxMs: 800, factor: 2 }, () => now);
    schedule.sync(['quiet', 'fresh']);
    schedule.observed('quiet', false); // 200, due at 200
    schedule.observed('quiet', false); // 400, due at 400
    schedule.observed('fresh', true); // 100, due at 100
    now = 50;
    schedule.retune({ minMs: 10, maxMs: 800, factor: 2 });
    expect(schedule.intervalOf('quiet')).toBe(40);
    expect(schedule.intervalOf('fresh')).toBe(10);
    // Last looked at 0: both are overdue under the new base.
    expect(schedule.due().sort()).toEqual(['fresh', 'quiet']);
    schedule.retune({ minMs: 1_000, maxMs: 2_000, factor: 2 });
    expect(schedule.intervalOf('quiet')).toBe(2_000);
    expect(schedule.nextDueAt()).toBe(1_000);
    expect(() => schedule.retune({ minMs: 0, maxMs: 1, factor: 2 })).toThrow(RangeError);
  });
});
