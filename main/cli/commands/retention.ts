import { stagedDaysFromText } from '../../../shared/retention-contract.js';
import { applyRetention } from '../../core/store/retention-runner.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, UsageError } from '../cli-errors.js';

/**
 * How long staging copies are kept (main/core/store/retention-repo.ts), changed with --staged-days; --run applies
 * retention now (the app does by itself, in the background) and gives the freed pages back; --vacuum is the
 * one-time switch of an older store to incremental auto-vacuum (a full VACUUM).
 */
export async function retention(
  ctx: CliContext,
  options: { stagedDays?: string; run: boolean; vacuum: boolean },
): Promise<number> {
  const { store } = ctx.services;
  if (options.stagedDays !== undefined) {
    // The rule the Settings screen and the contract use (shared/retention-contract.ts), and the same audited change.
    const days = stagedDaysFromText(options.stagedDays);
    if (days === undefined) throw new UsageError('--staged-days takes a number of days from 1 to 36500, or never');
    ctx.services.retention.setStagedDays(days);
  }
  if (options.vacuum) {
    const mode = store.retention.vacuumStep(0).autoVacuum;
    if (mode !== 'incremental') {
      if (!ctx.options.json) {
        ctx.line('rewriting the store to switch on incremental auto-vacuum (one time; the whole file is copied)…');
      }
      store.retention.switchToIncrementalVacuum();
    }
  }
  const run = options.run ? await applyRetention(store) : undefined;
  const settings = store.retention.settings();
  const vacuum = store.retention.vacuumStep(0);
  const summary = {
    stagedDays: settings.stagedDays,
    autoVacuum: vacuum.autoVacuum,
    freePages: vacuum.freePages,
    ...(run
      ? {
          run: {
            compacted: run.compacted,
            bodiesPacked: run.bodiesPacked,
            deleted: run.deleted,
            batchesFinished: run.batchesFinished,
            pagesReturned: run.pagesReturned,
          },
        }
      : {}),
  };
  if (ctx.options.json) {
    ctx.json(summary);
    return EXIT.ok;
  }
  ctx.line(
    settings.stagedDays === null
      ? 'staging copies: kept for ever'
      : `staging copies: kept ${settings.stagedDays} days after an order is accepted and finished, or a batch discarded`,
  );
  ctx.line(
    vacuum.autoVacuum === 'incremental'
      ? `freed space: given back to the file system (${vacuum.freePages} free pages now)`
      : `freed space: reused by later writes (${vacuum.freePages} free pages); rx-batch retention --vacuum gives it back`,
  );
  if (run) {
    ctx.line(
      `applied: ${run.compacted} accepted orders' copies dropped, ${run.bodiesPacked} finished orders' request ` +
        `bodies packed (losslessly), ${run.deleted} discarded orders deleted, ${run.pagesReturned} pages given back`,
    );
  }
  return EXIT.ok;
}
