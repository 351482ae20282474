import { describe, expect, it } from 'vitest';
import { formatTime } from '../format/format-date.js';
import { nextTry } from './next-try.js';

describe('the next try, counted down', () => {
  const at = '2026-11-26T14:35:10.000Z';
  const atMs = Date.parse(at);

  it('counts down to the time, in a clock and in words', () => {
    const try23 = nextTry(at, atMs - 23_000)!;
    expect(try23.due).toBe(false);
    // The clock time in the admin's own format (format-date.ts), whatever it is.
    expect(try23.text).toBe(`in 0:23 (at ${formatTime(at)})`);
    expect(try23.words).toBe('in 23 seconds');
    expect(nextTry(at, atMs - 61_000)!.words).toBe('in 1 minute 1 second');
  });

  it('says "now" once the time has come or passed', () => {
    expect(nextTry(at, atMs)).toEqual({ text: 'now', words: 'now', due: true });
    expect(nextTry(at, atMs + 5_000)!.due).toBe(true);
  });

  it('plans nothing without a time', () => {
    expect(nextTry(null, atMs)).toBeNull();
    expect(nextTry('not a time', atMs)).toBeNull();
  });
});
