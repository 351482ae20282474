import { describe, expect, it } from 'vitest';
import { describeRange } from './lookup-range.js';

describe('dispatch-date lookup ranges', () => {
  it('asks a range of up to four calendar days in one call and splits longer ones', () => {
    expect(describeRange('2025-03-01', '2025-03-01')).toEqual({ days: 1, calls: 1 });
    expect(describeRange('2025-03-01', '2025-03-04')).toEqual({ days: 4, calls: 1 });
    expect(describeRange('2025-03-01', '2025-03-05')).toEqual({ days: 5, calls: 2 });
    expect(describeRange('2025-03-01', '2025-03-10')).toEqual({ days: 10, calls: 3 });
    expect(describeRange('2025-02-27', '2025-03-02')).toEqual({ days: 4, calls: 1 });
  });

  it('explains a range it cannot ask for', () => {
    expect(describeRange('2025-03-05', '2025-03-01')).toEqual({ problem: 'The end date is before the start date.' });
    expect(describeRange('2025-01-01', '2025-03-01')).toEqual({ problem: 'Choose at most 31 days.' });
    expect(describeRange('', '2025-03-01')).toEqual({ problem: 'Choose both dates.' });
  });
});
