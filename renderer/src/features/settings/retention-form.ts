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

/** Whether `next` drops copies sooner than `current` does: fewer days, or any days after "for ever". */
export function shortens(current: StagedDays, next: StagedDays): boolean {
  return next !== null && (current === null || next < current);
}
