import { STAGED_DAYS_RULE, stagedDaysFromText, type StagedDays } from '../../../../shared/retention-contract.js';

/** The retention setting as the Settings form edits it: a number of days (as typed) or for ever. */
export interface RetentionForm {
  mode: 'days' | 'forever';
  days: string;
}

export function toRetentionForm(stagedDays: StagedDays): RetentionForm {
  return stagedDays === null ? { mode: 'forever', days: '90' } : { mode: 'days', days: String(stagedDays) };
}

/** The setting the form says, or the rule (shared with the contract and the CLI) when the days are not one. */
export function readRetentionForm(
  form: RetentionForm,
): { ok: true; stagedDays: StagedDays } | { ok: false; error: string } {
  if (form.mode === 'forever') return { ok: true, stagedDays: null };
  const days = stagedDaysFromText(form.days);
  return typeof days === 'number' ? { ok: true, stagedDays: days } : { ok: false, error: STAGED_DAYS_RULE };
}

/**
 * Whether the page asks before saving `next`: only when it drops copies sooner and no native dialog will ask (the
 * desktop app's core asks itself, `app.info`'s `desktop.confirmRetention`): the admin is asked once either way.
 */
export function pageAsksFirst(current: StagedDays, next: StagedDays, nativeConfirm: boolean): boolean {
  return !nativeConfirm && shortens(current, next);
}

/** Whether `next` drops copies sooner than `current` does: fewer days, or any days after "for ever". */
export function shortens(current: StagedDays, next: StagedDays): boolean {
  return next !== null && (current === null || next < current);
}
