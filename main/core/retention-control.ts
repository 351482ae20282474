import type { RetentionState, StagedDays } from '../../shared/retention-contract.js';
import type { Logger } from './platform/logger.js';
import { retentionQuestion, shortensRetention, type RetentionQuestion } from './retention-question.js';
import { RetentionSchedule, type RetentionRunResult, type RetentionScheduleOptions } from './store/retention-runner.js';
import type { Store } from './store/store.js';

/**
 * Retention as the front ends see it (issue #16): the setting, read and changed in one place for the Settings
 * screen and the CLI alike, and the background schedule that applies it (store/retention-runner.ts). A shorter
 * setting brings the next run forward; what the last run did is kept in memory (since this core started).
 */
export class RetentionControl {
  readonly #store: Store;
  readonly #now: () => Date;
  readonly #schedule: RetentionSchedule | undefined;
  #lastRun: { at: string; result: RetentionRunResult } | undefined;

  constructor(
    store: Store,
    options: { now: () => Date; logger: Logger; schedule: RetentionScheduleOptions | false | undefined },
  ) {
    this.#store = store;
    this.#now = options.now;
    const log = options.logger;
    const schedule = options.schedule;
    this.#schedule =
      schedule === false
        ? undefined
        : new RetentionSchedule(store, {
            ...schedule,
            onRun: (result) => {
              this.#lastRun = { at: this.#now().toISOString(), result };
              schedule?.onRun?.(result);
              if (result.compacted + result.bodiesPacked + result.deleted + result.pagesReturned === 0) return;
              const { compacted, bodiesPacked, deleted, batchesFinished, pagesReturned, freePages } = result;
              log.info('retention applied', {
                compacted,
                bodiesPacked,
                deleted,
                batchesFinished,
                pagesReturned,
                freePages,
              });
            },
            onError: (error) => {
              schedule?.onError?.(error);
              log.error('retention stopped; its next run carries on', {
                error: error instanceof Error ? error.message : String(error),
              });
            },
          });
  }

  state(): RetentionState {
    const settings = this.#store.retention.settings();
    const vacuum = this.#store.retention.vacuumStep(0);
    const last = this.#lastRun;
    const due = this.#schedule?.nextRunAt;
    return {
      stagedDays: settings.stagedDays,
      updatedAt: settings.updatedAt,
      autoVacuum: vacuum.autoVacuum,
      freePages: vacuum.freePages,
      pageSize: vacuum.pageSize,
      lastRun: last
        ? {
            at: last.at,
            compacted: last.result.compacted,
            deleted: last.result.deleted,
            pagesReturned: last.result.pagesReturned,
            aborted: last.result.aborted,
          }
        : null,
      // The timer runs on the machine's clock; shown on the core's (the same outside tests).
      nextRunAt:
        due === undefined ? null : new Date(this.#now().getTime() + Math.max(0, due - Date.now())).toISOString(),
    };
  }

  /**
   * The question to ask before `days` is saved when it is shorter than the setting now (fewer days, or any after
   * "for ever"), with what it drops; undefined when it drops nothing sooner and needs no question.
   */
  shorteningQuestion(days: StagedDays): RetentionQuestion | undefined {
    const before = this.#store.retention.settings().stagedDays;
    if (!shortensRetention(before, days)) return undefined;
    return retentionQuestion(days, before, this.#store.retention.dropsIfKeptFor(days));
  }

  /**
   * Changes how long staging copies are kept, audited by the user (store/retention-repo.ts), with the front end it
   * came through when known. A shorter time (or one after "for ever") brings the next background run forward.
   */
  setStagedDays(days: StagedDays, via?: 'electron' | 'browser' | 'direct'): RetentionState {
    const before = this.#store.retention.settings().stagedDays;
    this.#store.retention.setStagedDays(days, 'user', via);
    if (shortensRetention(before, days)) this.#schedule?.soon();
    return this.state();
  }

  /** Stops the schedule, waiting for a run under way (before the store closes). */
  stop(): Promise<void> {
    return this.#schedule?.stop() ?? Promise.resolve();
  }
}
