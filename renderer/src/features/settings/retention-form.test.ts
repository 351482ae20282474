import { describe, expect, it } from 'vitest';
import { STAGED_DAYS_RULE } from '../../../../shared/retention-contract.js';
import { pageAsksFirst, readRetentionForm, shortens, toRetentionForm } from './retention-form.js';

describe('the retention form', () => {
  it('reads days from 1 to 36,500 or for ever, and refuses anything else with the rule', () => {
    expect(readRetentionForm({ mode: 'days', days: ' 30 ' })).toEqual({ ok: true, stagedDays: 30 });
    expect(readRetentionForm({ mode: 'days', days: '36500' })).toEqual({ ok: true, stagedDays: 36_500 });
    expect(readRetentionForm({ mode: 'forever', days: 'whatever' })).toEqual({ ok: true, stagedDays: null });
    for (const wrong of ['', '0', '36501', '1.5', '-3', '1e3', 'never', 'ninety']) {
      expect(readRetentionForm({ mode: 'days', days: wrong }), wrong).toEqual({ ok: false, error: STAGED_DAYS_RULE });
    }
    expect(toRetentionForm(null)).toEqual({ mode: 'forever', days: '90' });
    expect(toRetentionForm(45)).toEqual({ mode: 'days', days: '45' });
  });

  it('asks first only when copies would go sooner', () => {
    expect(shortens(90, 30)).toBe(true);
    expect(shortens(null, 36_500)).toBe(true);
    expect(shortens(30, 90)).toBe(false);
    expect(shortens(30, null)).toBe(false);
    expect(shortens(30, 30)).toBe(false);
  });

  it('asks in the page only where no native dialog asks: once in browser mode, once (natively) in the desktop app', () => {
    expect(pageAsksFirst(90, 30, false)).toBe(true);
    expect(pageAsksFirst(null, 30, false)).toBe(true);
    expect(pageAsksFirst(90, 30, true)).toBe(false);
    expect(pageAsksFirst(null, 30, true)).toBe(false);
    expect(pageAsksFirst(30, 90, false)).toBe(false);
  });
});
