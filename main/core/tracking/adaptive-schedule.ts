/**
 * When to look at each open order again. An order whose status just changed is likely to change again soon (a
 * payment clears, then the clinical check), so it is checked again after `minMs`; each look that finds nothing
 * new stretches its interval by `factor`, up to `maxMs`. Pure bookkeeping on an injected clock, so the timing
 * rules can be tested without waiting.
 */

export interface AdaptiveIntervals {
  minMs: number;
  maxMs: number;
  /** Growth per unchanged look; 2 doubles the wait each time. */
  factor: number;
}

interface Entry {
  intervalMs: number;
  dueAt: number;
}

export class AdaptiveSchedule<K> {
  #intervals: AdaptiveIntervals;
  readonly #now: () => number;
  readonly #entries = new Map<K, Entry>();

  constructor(intervals: AdaptiveIntervals, now: () => number) {
    checkIntervals(intervals);
    this.#intervals = { ...intervals };
    this.#now = now;
  }

  /**
   * New intervals from now on (the admin changed the poll interval): each key's wait is scaled by the change of
   * `minMs`, so an order that had stretched to 8× the old base waits 8× the new one (within the new bounds), and
   * its next look is that long after its last one, which may be now.
   */
  retune(intervals: AdaptiveIntervals): void {
    checkIntervals(intervals);
    const scale = intervals.minMs / this.#intervals.minMs;
    this.#intervals = { ...intervals };
    for (const entry of this.#entries.values()) {
      const lastLook = entry.dueAt - entry.intervalMs;
      entry.intervalMs = Math.min(intervals.maxMs, Math.max(intervals.minMs, entry.intervalMs * scale));
      entry.dueAt = lastLook + entry.intervalMs;
    }
  }

  /** Tracks exactly `keys`: new ones are due at once, keys no longer present are forgotten. */
  sync(keys: Iterable<K>): void {
    const wanted = new Set(keys);
    for (const key of this.#entries.keys()) if (!wanted.has(key)) this.#entries.delete(key);
    const now = this.#now();
    for (const key of wanted) {
      if (!this.#entries.has(key)) this.#entries.set(key, { intervalMs: this.#intervals.minMs, dueAt: now });
    }
  }

  /** Keys due now, the longest overdue first. */
  due(limit = Number.POSITIVE_INFINITY): K[] {
    const now = this.#now();
    return [...this.#entries]
      .filter(([, entry]) => entry.dueAt <= now)
      .sort(([, a], [, b]) => a.dueAt - b.dueAt)
      .slice(0, limit)
      .map(([key]) => key);
  }

  /** Records a look: a change resets the interval to the minimum, no change stretches it. */
  observed(key: K, changed: boolean): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    const { minMs, maxMs, factor } = this.#intervals;
    entry.intervalMs = changed ? minMs : Math.min(maxMs, entry.intervalMs * factor);
    entry.dueAt = this.#now() + entry.intervalMs;
  }

  /** Makes every tracked key due now (a manual refresh). Intervals are kept. */
  makeAllDue(): void {
    const now = this.#now();
    for (const entry of this.#entries.values()) entry.dueAt = Math.min(entry.dueAt, now);
  }

  /** The earliest time anything is due; undefined when nothing is tracked. */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const entry of this.#entries.values()) if (next === undefined || entry.dueAt < next) next = entry.dueAt;
    return next;
  }

  intervalOf(key: K): number | undefined {
    return this.#entries.get(key)?.intervalMs;
  }

  get size(): number {
    return this.#entries.size;
  }
}

function checkIntervals(intervals: AdaptiveIntervals): void {
  if (!(intervals.minMs > 0) || !(intervals.maxMs >= intervals.minMs) || !(intervals.factor >= 1)) {
    throw new RangeError('intervals need 0 < minMs <= maxMs and factor >= 1');
  }
}
