import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { OrderEnrichment } from '../../../shared/enrichment-views.js';
import type { StagedOrderView } from '../../../shared/staging-views.js';
import { toWireJson } from '../../../shared/wire-json.js';
import { enrichmentFor } from '../../core/enrichment/index.js';
import { StagingError } from '../../core/staging/staging-deps.js';
import type { ExportCounts } from '../../core/staging/batch-exports.js';
import { stagingFor } from '../../core/staging/staging-handlers.js';
import type { StagingService } from '../../core/staging/staging-service.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError } from '../cli-errors.js';
import { openExportFile } from '../export-file.js';
import { cliProblemText } from './hl7-profile-hint.js';
import { plural } from '../../../shared/count-words.js';
import { invalidInWords, notOrdersSentence } from '../../../shared/hl7-message-types.js';

/** `batch list`, `batch show`, `batch export --template` and `batch errors`: staged batches read back out. */

function staging(ctx: CliContext): StagingService {
  return stagingFor(ctx.services);
}

function inputErrors<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof StagingError) throw new InputError(error.message);
    throw error;
  }
}

/** How many batches `batch list` prints unless --limit says. */
const BATCH_LIST_DEFAULT = 50;

/**
 * `batch list [--env ENV] [--limit N] [--before BATCH]`: the imported batches, newest first, each with its number
 * (what `batch show`, `accept` and the problems that name a batch take), when it was imported, its environment, its
 * orders and its file. A page at a time: when older ones remain, the last line says how to see them. --json: one
 * array of the batches as the app's contract gives them.
 */
export function batchList(ctx: CliContext, options: { environmentId?: string; limit?: number; before?: number }) {
  if (options.environmentId) ctx.environment(options.environmentId);
  const limit = options.limit ?? BATCH_LIST_DEFAULT;
  // One more than asked: whether there is an older page to point at.
  const read = staging(ctx).listBatches(options.environmentId, {
    limit: limit + 1,
    ...(options.before !== undefined ? { before: options.before } : {}),
  });
  const batches = read.slice(0, limit);
  if (ctx.options.json) {
    ctx.json(batches);
    return EXIT.ok;
  }
  if (batches.length === 0) {
    ctx.line(options.before !== undefined ? `No batch before batch ${options.before}.` : 'No batches imported yet.');
    return EXIT.ok;
  }
  ctx.line('batch  imported (UTC)        environment           orders   valid  invalid  accepted  file');
  for (const batch of batches) {
    const c = batch.counts;
    ctx.line(
      [
        String(batch.id).padStart(5),
        batch.createdAt.slice(0, 19).replace('T', ' ').padEnd(20),
        batch.environmentId.padEnd(20),
        String(c.total).padStart(7),
        String(c.valid).padStart(7),
        String(c.invalid).padStart(8),
        String(c.accepted).padStart(9),
        `${batch.sourceFileName}${batch.discardedAt ? ' (discarded)' : ''}`,
      ].join('  '),
    );
  }
  if (read.length > limit) {
    const env = options.environmentId ? ` --env ${options.environmentId}` : '';
    ctx.line(`Older batches: rx-batch batch list${env} --before ${batches.at(-1)!.id}`);
  }
  return EXIT.ok;
}

/**
 * One order as `batch show --json` prints it: the body as the service will read it, dm+d codes as exact numbers,
 * and what the stored service answers say of it (`check`, read from the store: no service call).
 */
function shownOrder(order: StagedOrderView, check: OrderEnrichment | undefined): unknown {
  // Everything the review screen sees but the batch id, which the document states once at its top.
  const { batchId: _batchId, ...shown } = order;
  if (!check) return shown;
  const { stagedOrderId: _id, position: _position, ...found } = check;
  return { ...shown, check: found };
}

/**
 * `batch show BATCH [--json]`: every order of the batch with its problems and provenance. With --json, one JSON
 * document `{ "batch": …, "lastCheck": …, "orders": [ … ] }` written a page at a time; each order's `body` is its
 * create-with-clinic body exactly as it would be sent (18-digit dm+d codes as exact number tokens), `request` the
 * exact request text for the batch's route, and `check` what the stored service answers say of it (`batch check`).
 * Exit 1 when some orders are staged and invalid.
 */
export function batchShow(ctx: CliContext, batchId: number): number {
  const service = staging(ctx);
  const { batch } = inputErrors(() => service.getBatch(batchId, { limit: 1 }));
  if (ctx.options.json) {
    const enrichment = enrichmentFor(ctx.services);
    // An empty id list reads just the batch's last check (or null when it was never checked).
    const { run } = enrichment.read(batchId, { stagedOrderIds: [] });
    ctx.jsonText(`{"batch":${JSON.stringify(batch)},"lastCheck":${JSON.stringify(run)},"orders":[`);
    let first = true;
    for (const page of service.walkBatch(batchId)) {
      // One read per page: the items of 500 orders and the stored answers for their codes.
      const checks = new Map(
        enrichment
          .read(batchId, { stagedOrderIds: page.map((order) => order.id) })
          .orders.map((view) => [view.stagedOrderId, view]),
      );
      const text = page.map((order) => toWireJson(shownOrder(order, checks.get(order.id)))).join(',');
      ctx.jsonText(`${first ? '' : ','}${text}`);
      first = false;
    }
    ctx.jsonText(']}\n');
  } else {
    const c = batch.counts;
    ctx.line(
      `Batch ${batch.id} (${batch.sourceFileName}, ${batch.kind.toUpperCase()}, route ${batch.route}, ${batch.environmentId}): ` +
        `${plural(c.total, 'order')}: ${c.valid} valid, ${invalidInWords(c.invalid, c.notOrders)}, ${c.accepted} accepted.`,
    );
    if (c.notOrders > 0) ctx.line(notOrdersSentence(c.notOrders));
    for (const page of service.walkBatch(batchId)) {
      for (const order of page) {
        const status = order.state === 'accepted' ? 'accepted' : order.valid ? 'valid' : 'INVALID';
        const from = order.rows
          ? `rows ${order.rows.join(', ')}`
          : order.message !== undefined
            ? `message ${order.message}`
            : '';
        ctx.line(
          `#${order.position} ${order.clinicCode ?? '?'} ${order.clinicOrderId ?? '?'}${order.orderControl === 'CA' ? ' (cancel)' : ''} ${status}${from ? ` (${from})` : ''}`,
        );
        for (const problem of order.problems) {
          ctx.line(`    ${problem.severity}: ${problem.field ? `${problem.field}: ` : ''}${cliProblemText(problem)}`);
        }
      }
    }
  }
  return batch.counts.invalid > 0 ? EXIT.attention : EXIT.ok;
}

/**
 * Writes an export's chunks to a file. The export records itself in the audit log when its last chunk has been
 * taken; if anything fails before then (a write, or that entry), the file is removed: no unrecorded export is left.
 */
async function writeChunks(file: string, chunks: Iterable<string>, bom: boolean): Promise<void> {
  const path = resolve(file);
  // Private like every file holding patient data, and never what someone else planted at the name; the BOM tells
  // Excel on Windows the text is UTF-8.
  const handle = await openExportFile(path);
  let written = false;
  try {
    if (bom) await handle.write('\ufeff');
    for (const chunk of chunks) await handle.write(chunk);
    written = true;
  } finally {
    await handle.close();
    if (!written) await rm(path, { force: true });
  }
}

/** `batch export BATCH --template FILE`: the batch in our CSV template. */
export async function batchExportTemplate(ctx: CliContext, batchId: number, file: string): Promise<number> {
  const counts = { orders: 0, rows: 0 };
  const chunks = inputErrors(() => staging(ctx).templateCsv(batchId, counts));
  await writeChunks(file, chunks, true);
  ctx.line(`Wrote batch ${batchId} in the CSV template to ${file}.`);
  return EXIT.ok;
}

/** `batch errors BATCH FILE`: the invalid orders' original rows plus an `errors` column. */
export async function batchErrors(ctx: CliContext, batchId: number, file: string): Promise<number> {
  const counts: ExportCounts = { orders: 0, rows: 0 };
  const chunks = inputErrors(() => staging(ctx).errorCsv(batchId, counts));
  await writeChunks(file, chunks, true);
  const notOrders = counts.notOrders ?? 0;
  if (ctx.options.json) ctx.json({ batchId, orders: counts.orders, notOrders, file });
  else {
    ctx.line(
      `Wrote ${plural(counts.orders, 'order')} that ${counts.orders === 1 ? 'needs' : 'need'} fixing to ${file}; fix them and import the file again.`,
    );
    if (notOrders > 0) {
      ctx.line(`Left out ${plural(notOrders, 'message')} that no fix makes an order (rx-batch batch show ${batchId}).`);
    }
  }
  return EXIT.ok;
}
