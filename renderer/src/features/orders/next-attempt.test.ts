import { describe, expect, it } from 'vitest';
import { formatDateTime } from '../format/format-date.js';
import { nextAttemptText } from './next-attempt.js';

describe("an order's next attempt", () => {
  const at = '2026-12-01T10:00:00.000Z';
  it('is a time to come while it is ahead', () => {
    expect(nextAttemptText(at, Date.parse(at) - 60_000)).toBe(`next at ${formatDateTime(at)}`);
  });
  it('says the try is due once its time has passed, never a past time as the next one', () => {
    expect(nextAttemptText(at, Date.parse(at) + 60_000)).toBe(
      `next try due since ${formatDateTime(at)}: it goes when sending runs`,
    );
    expect(nextAttemptText('not a time', Date.parse(at))).toBe('');
  });
});
