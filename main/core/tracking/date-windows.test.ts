import { describe, expect, it } from 'vitest';
import { addDays, dateWindows, utcDate } from './date-windows.js';

const spanDays = (w: { startDate: string; endDate: string }) =>
  (Date.parse(w.endDate) - Date.parse(w.startDate)) / 86_400_000;

describe('date windows for the date-range status endpoint (at most a 3-day span per call)', () => {
  it('asks once for a span of 3 days or less', () => {
    expect(dateWindows('2025-03-01', '2025-03-01')).toEqual([{ startDate: '2025-03-01', endDate: '2025-03-01' }]);
    expect(dateWindows('2025-03-01', '2025-03-04')).toEqual([{ startDate: '2025-03-01', endDate: '2025-03-04' }]);
  });

  it('splits a longer span into contiguous windows that cover every day once', () => {
    const windows = dateWindows('2025-02-25', '2025-03-10');
    expect(windows).toEqual([
      { startDate: '2025-02-25', endDate: '2025-02-28' },
      { startDate: '2025-03-01', endDate: '2025-03-04' },
      { startDate: '2025-03-05', endDate: '2025-03-08' },
      { startDate: '2025-03-09', endDate: '2025-03-10' },
    ]);
    for (const window of windows) expect(spanDays(window)).toBeLessThanOrEqual(3);
    for (let i = 1; i < windows.length; i += 1) {
      expect(addDays(windows[i - 1]!.endDate, 1)).toBe(windows[i]!.startDate);
    }
  });

  it('crosses year ends and leap days', () => {
    expect(dateWindows('2023-12-30', '2024-01-02')).toHaveLength(1);
    expect(dateWindows('2024-02-27', '2024-03-02').map((w) => w.endDate)).toEqual(['2024-03-01', '2024-03-02']);
    expect(utcDate(new Date('2024-02-29T23:59:59Z'))).toBe('2024-02-29');
  });

  it('refuses reversed ranges and dates that do not exist', () => {
    expect(() => dateWindows('2025-03-05', '2025-03-01')).toThrow(/before/);
    expect(() => dateWindows('2025-02-30', '2025-03-01')).toThrow(/calendar date/);
    expect(() => dateWindows('03/01/2025', '2025-03-01')).toThrow(/YYYY-MM-DD/);
  });
});
