import type { CodeLists } from '../../../shared/environment.js';
import type { ImportSummary } from '../../../shared/staging-views.js';
import { importHl7Message } from '../importing/import-message.js';
import type { ImportedOrder, Problem } from '../model/imported-order.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import type { OrderExtras } from '../model/provenance-table.js';
import { problemsForRoute } from '../staging/route-request.js';
import { summaryOf } from '../staging/stage-file.js';
import type { IntakeRepo } from '../store/intake-repo.js';
import { pushStagedRow } from '../store/staged-batch-writer.js';
import type { Store } from '../store/store.js';

/**
 * A received message, read in memory by the importer (no file, no store), then appended to its sender's batch of
 * the day inside the transaction that records it. Reading decides the ACK; appending is a few inserts, so a
 * message costs rows in an existing batch, not a batch with its own commits.
 */

export interface ReadEntry {
  order: ImportedOrder;
  extras: OrderExtras | undefined;
  /** Its problems and validity for the v1 route, as a file import stages them. */
  problems: Problem[];
  valid: boolean;
}

export interface ReadMessage {
  /** The message as a whole cannot be staged (unreadable encoding, no message, no order): AR. */
  refused: Problem[] | undefined;
  entries: ReadEntry[];
  summary: ImportSummary;
}

export interface ReadOptions {
  codeLists: CodeLists;
  /** Saved profiles: the one saved for the message's sender is applied. */
  profiles: MappingProfile[];
  isKnownOrder(clinicCode: string, clinicOrderId: string): boolean;
  /** A cancel's order came in an earlier message of the sender and waits to be accepted. */
  isPendingNewOrder(clinicCode: string, clinicOrderId: string): boolean;
  /** The items (ORC-2) of a grouped order a cancel names (ImportOptions.groupItemsOf). */
  groupItemsOf?(clinicCode: string, clinicOrderId: string): readonly string[] | undefined;
  today: Date;
  /** The environment is the local sandbox: a test system's message (MSH-11 T) is read with a warning there. */
  sandbox?: boolean;
}

export async function readMessage(raw: Buffer, fileName: string, options: ReadOptions): Promise<ReadMessage> {
  const { report, orders } = await importHl7Message(raw, fileName, options);
  const summary = summaryOf(report);
  const fatal = report.fileProblems.filter((problem) => problem.severity === 'error');
  if (fatal.length > 0) return { refused: fatal, entries: [], summary };
  if (orders.length === 0) {
    const none: Problem = {
      severity: 'error',
      file: fileName,
      code: 'file.noOrders',
      text: 'The message holds no order.',
    };
    return { refused: [none], entries: [], summary };
  }
  const entries = orders.map(({ order, extras }) => {
    const subject = {
      body: order.body,
      orderControl: order.source.orderControl ?? 'NW',
      source: order.source,
      provenance: order.provenance,
    };
    const routed = problemsForRoute(subject, order.problems, 'v1', options.codeLists);
    return { order, extras, problems: routed.problems, valid: routed.valid };
  });
  return { refused: undefined, entries, summary };
}

/** The name of a sender's batch of the day: `EPR-7^CLINIC-H 2026-11-26 (MLLP)` (the local date). */
export function dayBatchName(sender: string, at: Date): string {
  const day = `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;
  return `${(sender || 'unknown sender').slice(0, 200)} ${day} (MLLP)`;
}

/**
 * Appends read messages' entries, in order, to the sender's batch of the day (made, with its `batch.imported` audit
 * entry, by the day's first message, or again after the admin discarded it). Inside the caller's transaction.
 * Returns, for each message, the batch and the positions its entries took (`after` < position ≤ `upTo`). The
 * batch's counts grow once for all of them.
 */
export function appendToDayBatch(
  store: Store,
  repo: IntakeRepo,
  target: { environmentId: string; name: string },
  reads: readonly ReadMessage[],
): Array<{ batchId: number; after: number; upTo: number }> {
  if (reads.length === 0) return [];
  let batchId = repo.openBatch(target.environmentId, target.name);
  if (batchId === undefined) {
    batchId = store.batches.create({
      environmentId: target.environmentId,
      sourceFileName: target.name,
      kind: 'hl7',
      rowCount: 0,
      invalidCount: 0,
      route: 'v1',
      report: { ...reads[0]!.summary, rowsRead: 0, fileProblems: [] },
    }).id;
    store.audit.append({
      actor: 'system',
      action: 'batch.imported',
      environmentId: target.environmentId,
      batchId,
      details: { fileName: target.name, fileKind: 'hl7', rowCount: 0, orderCount: 0, invalidCount: 0, route: 'v1' },
    });
  }
  let upTo = repo.lastPosition(batchId);
  const rows: unknown[] = [];
  let invalid = 0;
  const placed = reads.map((read) => {
    const after = upTo;
    read.entries.forEach((entry, index) => {
      pushStagedRow(rows, after + index + 1, entry.order, entry, entry.extras);
      if (!entry.valid) invalid += 1;
    });
    upTo = after + read.entries.length;
    return { batchId: batchId, after, upTo };
  });
  repo.appendStaged(batchId, rows, invalid);
  return placed;
}
