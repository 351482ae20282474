import { DEFAULT_REUSE_SECONDS } from '../../../shared/enrichment-contract.js';
import type { EnrichmentRun } from '../../../shared/enrichment-views.js';
import { EnrichmentError, enrichmentFor } from '../../core/enrichment/index.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError } from '../cli-errors.js';
import {
  CheckReport,
  notCheckedLines,
  warningLine,
  warningsLine,
  type OrderRef,
  type ReportedWarning,
} from './check-report.js';

/** Warning lines printed at most; `--json` (or `batch show --json`) has them all. */
const MAX_WARNING_LINES = 200;
/** Staged orders read per page when the views are walked after the check. */
const PAGE = 500;
/** Progress lines at most this often on stderr. */
const PROGRESS_LINE_MS = 1000;

export interface BatchCheckArgs {
  batchId: number;
  /** Ask everything afresh instead of reusing answers younger than the contract's default window (300 s). */
  fresh: boolean;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

/**
 * `batch check BATCH [--fresh] [--json]`: checks the batch's staged orders with the Order Service through the
 * app's own enrichment service (each distinct dm+d code: product, stock, price; courier codes against the courier
 * list; answers stored with their time), then reports the warnings and what could not be checked and why. Exit 0
 * when everything was checked and nothing warns; 1 when something needs a person (warnings, or parts not checked:
 * offline, signed out, service errors, cancelled by SIGINT); 2 for no such batch. SIGINT cancels the check: the
 * answers that came are kept, and the run is stored and audited as cancelled.
 */
export async function batchCheck(ctx: CliContext, args: BatchCheckArgs): Promise<number> {
  const { batchId } = args;
  const services = ctx.services;
  const batch = services.store.batches.get(batchId);
  if (!batch) throw new InputError(`there is no batch ${batchId}`);
  if (!services.registry.find(batch.environmentId)) {
    throw new InputError(
      `batch ${batchId} belongs to environment "${batch.environmentId}", which is not set up any more (rx-batch env list)`,
    );
  }
  await ctx.embeddedSandboxFor(batch.environmentId);
  const run = await checkWithProgress(ctx, batchId, args.fresh ? 0 : DEFAULT_REUSE_SECONDS * 1000);

  const report = new CheckReport();
  const shown: ReportedWarning[] = [];
  if (ctx.options.json) {
    ctx.jsonText(`{"run":${JSON.stringify(run)},"warnings":[`);
    let first = true;
    for (const warnings of walkWarnings(ctx, batchId, report)) {
      if (warnings.length === 0) continue;
      ctx.jsonText(`${first ? '' : ','}${warnings.map((w) => JSON.stringify(w)).join(',')}`);
      first = false;
    }
    report.takeEarlierAnswers(run);
    ctx.jsonText(`],"notChecked":${JSON.stringify(report.notCheckedObject())}}\n`);
  } else {
    for (const warnings of walkWarnings(ctx, batchId, report)) {
      shown.push(...warnings.slice(0, MAX_WARNING_LINES - shown.length));
    }
    report.takeEarlierAnswers(run);
    printSummary(ctx, run, report, batch.sourceFileName);
    for (const warning of shown) ctx.line(warningLine(warning));
    if (report.warnings > shown.length) {
      ctx.line(
        `… and ${plural(report.warnings - shown.length, 'more warning')}: rx-batch batch check ${batchId} --json ` +
          `(reuses the answers just stored) lists them all.`,
      );
    }
  }
  const needsPerson = run.outcome !== 'complete' || run.counts.warnings > 0 || report.warnings > 0 || report.unfinished;
  return needsPerson ? EXIT.attention : EXIT.ok;
}

/** Runs the check, printing progress on stderr (not with --json) and cancelling it on SIGINT/SIGTERM. */
async function checkWithProgress(ctx: CliContext, batchId: number, reuseWithinMs: number): Promise<EnrichmentRun> {
  const { events } = ctx.services;
  const enrichment = enrichmentFor(ctx.services);
  let lastLine = -Infinity;
  const offProgress = events.subscribe('enrichment.progress', (progress) => {
    const now = Date.now();
    if (progress.batchId !== batchId || progress.state !== 'running' || ctx.options.json) return;
    if (now - lastLine < PROGRESS_LINE_MS) return;
    lastLine = now;
    ctx.warn(
      `Checking batch ${batchId} with ${progress.environmentId}: ${progress.done} of ${progress.total} done ` +
        `(dm+d codes and the courier list), ${plural(progress.calls, 'call')}`,
    );
  });
  const cancel = () => enrichment.cancel(batchId);
  try {
    let running: Promise<EnrichmentRun>;
    try {
      running = enrichment.enrich(batchId, { reuseWithinMs });
    } catch (error) {
      if (error instanceof EnrichmentError) throw new InputError(error.message);
      throw error;
    }
    // The check is registered by now, so a signal that came while the store was opening cancels it too.
    ctx.io.signal.addEventListener('abort', cancel, { once: true });
    if (ctx.io.signal.aborted) cancel();
    return await running;
  } finally {
    ctx.io.signal.removeEventListener('abort', cancel);
    offProgress();
  }
}

/**
 * The batch's staged orders (the ones a check covers) a page at a time, each page's views read from the stored
 * answers and tallied into `report`; yields each page's warnings with the orders they are about.
 */
function* walkWarnings(ctx: CliContext, batchId: number, report: CheckReport): Generator<ReportedWarning[]> {
  const { store } = ctx.services;
  const enrichment = enrichmentFor(ctx.services);
  for (let after = 0; ;) {
    const page = store.stagedOrders.after(batchId, after, PAGE, { state: 'staged' });
    if (page.length === 0) return;
    after = page[page.length - 1]!.position;
    const refs = new Map<number, OrderRef>(
      page.map((order) => [
        order.id,
        {
          stagedOrderId: order.id,
          position: order.position,
          clinicCode: order.clinicCode,
          clinicOrderId: order.clinicOrderId,
        },
      ]),
    );
    const { orders } = enrichment.read(batchId, { stagedOrderIds: [...refs.keys()] });
    yield orders.flatMap((view) => report.add(view, refs.get(view.stagedOrderId)!));
  }
}

function printSummary(ctx: CliContext, run: EnrichmentRun, report: CheckReport, fileName: string): void {
  const c = run.counts;
  const where = `Batch ${run.batchId} (${fileName}, ${run.environmentId})`;
  if (c.orders === 0) {
    ctx.line(`${where}: no staged orders to check (accepted orders are not checked again).`);
    return;
  }
  ctx.line(
    `${where}: checked ${plural(c.codes, 'dm+d code')} and ${plural(c.courierCodes, 'courier code')} ` +
      `for ${plural(c.orders, 'order')}; ${plural(run.calls, 'call')} to the service, ` +
      `${plural(run.reused, 'recent answer')} reused.`,
  );
  if (run.outcome === 'cancelled') ctx.line('Cancelled: the answers that came are kept.');
  ctx.line(warningsLine(report));
  for (const line of notCheckedLines(report, run.environmentId, run.batchId)) ctx.line(line);
  // A partial check whose gaps no order shows (say, an answer that failed for a code no order has any more).
  if (run.outcome === 'partial' && !report.unfinished) ctx.line(run.message);
}
