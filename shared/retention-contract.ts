import { z } from 'zod';

/**
 * Retention's calls (spread into `calls` in contract.ts; issue #16): how long the staging copies of finished orders
 * are kept (main/core/store/retention-repo.ts), read and changed from Settings. The rule for the days is here once,
 * for the contract, the store, the CLI's `--staged-days` and the Settings form alike.
 */

export const STAGED_DAYS_MIN = 1;
export const STAGED_DAYS_MAX = 36_500;

/** The rule in words, for every place that refuses a value. */
export const STAGED_DAYS_RULE = 'Keep the copies a whole number of days from 1 to 36,500, or for ever';

/** Days the copies are kept once nothing needs them; null: kept for ever. */
export const stagedDaysSchema = z
  .number({ error: STAGED_DAYS_RULE })
  .int({ error: STAGED_DAYS_RULE })
  .min(STAGED_DAYS_MIN, { error: STAGED_DAYS_RULE })
  .max(STAGED_DAYS_MAX, { error: STAGED_DAYS_RULE })
  .nullable();
export type StagedDays = z.infer<typeof stagedDaysSchema>;

/**
 * Days as someone typed them (digits only, spaces around allowed), or `never` for ever: the days, null, or
 * undefined when the text is neither or out of range.
 */
export function stagedDaysFromText(text: string): StagedDays | undefined {
  const trimmed = text.trim();
  if (trimmed === 'never') return null;
  if (!/^\d{1,6}$/.test(trimmed)) return undefined;
  const parsed = stagedDaysSchema.safeParse(Number(trimmed));
  return parsed.success ? parsed.data : undefined;
}

const count = z.number().int().nonnegative();

/** What the last background run since the core started did (none yet: null). */
export const retentionRunSchema = z
  .object({
    /** When it ended. */
    at: z.string(),
    /** Accepted orders whose copies were dropped. */
    compacted: count,
    /** Never-accepted staged orders of discarded batches deleted. */
    deleted: count,
    /** Free pages given back to the file system. */
    pagesReturned: count,
    /** Stopped before the end (the app closing); the next run carries on. */
    aborted: z.boolean(),
  })
  .strict();

export const retentionStateSchema = z
  .object({
    stagedDays: stagedDaysSchema,
    /** When the setting was last changed (or the store created). */
    updatedAt: z.string(),
    /** `incremental`: freed space goes back to the disk; `none` (a store made before retention): reused only. */
    autoVacuum: z.enum(['none', 'full', 'incremental']),
    /** Free pages in the file now, and their size in bytes. */
    freePages: count,
    pageSize: count,
    lastRun: retentionRunSchema.nullable(),
    /** When the background run is next due; null when none is scheduled (a run under way, or none in this core). */
    nextRunAt: z.string().nullable(),
  })
  .strict();
export type RetentionState = z.infer<typeof retentionStateSchema>;

export const retentionCalls = {
  'retention.get': { input: z.object({}).strict(), output: retentionStateSchema },
  /**
   * Sets how long the copies are kept (audited as `retention.changed`, old and new, when it changes). A shorter
   * time brings the next background run forward, so it applies within minutes without a restart. In the desktop app
   * a shorter time is first confirmed in a native dialog; a no is refused as `forbidden` and keeps the days.
   */
  'retention.set': { input: z.object({ stagedDays: stagedDaysSchema }).strict(), output: retentionStateSchema },
} as const;
