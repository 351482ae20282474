import { describe, expect, it } from 'vitest';
import { formatDateTime } from './format-date.js';
import { formatRemaining, plural } from './format-time.js';

describe('time and count formats', () => {
  it('shows the time left on a code as a clock and in words', () => {
    expect(formatRemaining(299_001)).toEqual({ clock: '5:00', words: '5 minutes' });
    expect(formatRemaining(65_000)).toEqual({ clock: '1:05', words: '1 minute 5 seconds' });
    expect(formatRemaining(1_000)).toEqual({ clock: '0:01', words: '1 second' });
    expect(formatRemaining(-5_000)).toEqual({ clock: '0:00', words: '0 seconds' });
  });

  it('keeps text that is not a date readable instead of showing "Invalid Date"', () => {
    expect(formatDateTime('2025-03-03')).not.toBe('2025-03-03');
    expect(formatDateTime('next Tuesday')).toBe('next Tuesday');
    expect(formatDateTime(null)).toBe('—');
  });

  it('counts in words with thousands separators', () => {
    expect(plural(1, 'order')).toBe('1 order');
    expect(plural(12_345, 'order')).toBe('12,345 orders');
    expect(plural(2, 'entry', 'entries')).toBe('2 entries');
  });
});
