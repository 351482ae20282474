import { extname } from 'node:path';
import type { ImportSummary } from '../../../shared/staging-views.js';
import { importSource } from '../importing/import-file.js';
import type { ImportSource } from '../importing/import-source.js';
import { TEMPLATE_PROFILE, headerFingerprint, type MappingProfile } from '../model/mapping-profile.js';
import { TEMPLATE_COLUMNS } from '../model/field-catalogue.js';
import type { OrderExtras } from '../model/provenance-table.js';
import type { ImportProgress, ImportReport, ImportedOrder, Problem } from '../model/imported-order.js';
import type { OrderRoute } from '../store/order-state.js';
import type { StagedBatchWriter } from '../store/staged-batch-writer.js';
import type { AcceptedOrdersLookup } from '../store/staged-orders-repo.js';
import { ERRORS_COLUMN } from './batch-exports.js';
import { acceptedGroupItems } from './group-items.js';
import { readJsonOrders } from './json-orders.js';
import { problemsForRoute, type RouteSubject } from './route-request.js';
import { StagingError, type StagingDeps } from './staging-deps.js';

/**
 * An import into staging: the importer streams orders into a batch writer (straight into `staged_orders` under a
 * hidden batch, written in a worker thread while the file is still being read, so memory stays flat), and only a
 * complete import becomes a visible batch, in one transaction with its `batch.imported` audit entry. A file the
 * importer refuses as a whole (empty, binary, no header, truncated HL7 batch…) stages nothing; neither does a
 * cancelled or failed import (the writer deletes what it wrote). Nothing already staged or accepted is touched.
 */

export interface StageFileInput {
  environmentId: string;
  /** The file, opened once (import-source.ts); its opener closes it. */
  source: ImportSource;
  /** The name shown in problems and kept with the batch (the base name the admin chose). */
  fileName: string;
  /** A saved profile's name, or `template`; absent: chosen by the file's header (CSV) or sender (HL7). */
  profileName?: string;
  /** False: no saved profile is chosen automatically (the CSV template or a suggestion; HL7's standard map). */
  autoProfile?: boolean;
  /** Overrides encoding detection. */
  encoding?: string;
  route?: OrderRoute;
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
}

export type StageResult =
  | {
      status: 'staged';
      batchId: number;
      orders: number;
      valid: number;
      invalid: number;
      /** Of the invalid, the entries that are no order at all (NOT_AN_ORDER_CODES): nothing in Rx Batch mends them. */
      notOrders: number;
      summary: ImportSummary;
    }
  | { status: 'refused'; problems: Problem[]; summary: ImportSummary };

/** Reserved profile names: the importer uses them for its own choices. */
export const RESERVED_PROFILE_NAMES = ['template', 'suggested'];

/**
 * Saved profiles as the importer should see them. A profile saved with its file's header cells is offered a second
 * time under the fingerprint of that header plus the `errors` column, so an error export fixed in a spreadsheet
 * is read with the same mapping (dates included) when it comes back.
 */
function importProfiles(deps: StagingDeps): MappingProfile[] {
  const profiles: MappingProfile[] = [];
  for (const saved of deps.store.mappingProfiles.list()) {
    profiles.push(saved.profile);
    if (saved.headerCells) {
      profiles.push({ ...saved.profile, headerFingerprint: headerFingerprint([...saved.headerCells, ERRORS_COLUMN]) });
    }
  }
  profiles.push({ ...TEMPLATE_PROFILE, headerFingerprint: headerFingerprint([...TEMPLATE_COLUMNS, ERRORS_COLUMN]) });
  return profiles;
}

function chosenProfile(deps: StagingDeps, name: string): MappingProfile {
  if (name === TEMPLATE_PROFILE.name) return TEMPLATE_PROFILE;
  const saved = deps.store.mappingProfiles.get(name);
  if (!saved) throw new StagingError(`there is no mapping profile "${name}"`);
  return saved.profile;
}

export function summaryOf(report: ImportReport): ImportSummary {
  return {
    format: report.format,
    encoding: report.encoding,
    encodingDetected: report.encodingDetected,
    ...(report.delimiter !== undefined ? { delimiter: report.delimiter } : {}),
    ...(report.headerRow !== undefined ? { headerRow: report.headerRow } : {}),
    ...(report.header ? { headerCells: report.header.cells } : {}),
    ...(report.candidateHeader ? { candidateHeader: report.candidateHeader } : {}),
    ...(report.messageTypes ? { messageTypes: report.messageTypes } : {}),
    ...(report.profile !== undefined ? { profile: report.profile } : {}),
    ...(report.appliedProfile ? { appliedProfile: report.appliedProfile } : {}),
    ...(report.profileChoice ? { profileChoice: report.profileChoice } : {}),
    ...(report.hl7Sender ? { hl7Sender: report.hl7Sender } : {}),
    ...(report.hl7MessageSenders ? { hl7MessageSenders: report.hl7MessageSenders } : {}),
    rowsRead: report.rowsRead,
    fileProblems: report.fileProblems,
  };
}

/**
 * An imported order as `problemsForRoute` reads it. Its provenance is read only if the route has a problem to
 * locate (an imported order's record is built on first read), hence a getter; on the prototype, not in an object
 * literal: with a literal getter (a closure per order) every order's body, cells and texts survived the young-
 * generation collections until the next full GC (measured with --trace-gc: ~3.5 MB promoted per scavenge, most
 * of an import's GC time; our reading is that V8 keeps a literal's accessor pair in the old generation).
 */
class ImportedRouteSubject implements RouteSubject {
  readonly body: unknown;
  readonly orderControl: RouteSubject['orderControl'];
  readonly source: ImportedOrder['source'];
  readonly #order: ImportedOrder;

  constructor(order: ImportedOrder) {
    this.#order = order;
    this.body = order.body;
    this.orderControl = order.source.orderControl ?? 'NW';
    this.source = order.source;
  }

  get provenance(): ImportedOrder['provenance'] {
    return this.#order.provenance;
  }
}

/** What the batch row keeps: the summary, plus the header's original text for the error export. */
export interface StoredReport extends ImportSummary {
  headerText?: string;
}

export async function stageFile(deps: StagingDeps, input: StageFileInput): Promise<StageResult> {
  const codeLists = deps.codeListsFor(input.environmentId);
  const route = input.route ?? 'v1';
  const today = deps.now();
  const profile = input.profileName !== undefined ? chosenProfile(deps, input.profileName) : undefined;
  const fileName = input.fileName.slice(0, 255) || 'import';
  const writer = deps.store.stagedOrders.writer(
    { environmentId: input.environmentId, sourceFileName: fileName, route },
    deps.openRowSink,
  );
  let accepted: AcceptedOrdersLookup | undefined;
  try {
    const lookup = deps.store.stagedOrders.acceptedLookup(input.environmentId);
    accepted = lookup;
    const isKnownOrder = (clinicCode: string, clinicOrderId: string) => lookup.has(clinicCode, clinicOrderId);
    const stage = (order: ImportedOrder, extras?: OrderExtras) => {
      const routed = problemsForRoute(new ImportedRouteSubject(order), order.problems, route, codeLists);
      return writer.add(order, routed, extras);
    };

    let report: StoredReport;
    let kind: 'csv' | 'hl7' | 'json';
    if (extname(input.fileName).toLowerCase() === '.json') {
      kind = 'json';
      const read = await readJsonOrders(input.source, { file: input.fileName, codeLists, today, isKnownOrder });
      report = {
        format: 'json',
        encoding: 'utf-8',
        encodingDetected: false,
        rowsRead: read.ok ? read.orders.length : 0,
        fileProblems: read.ok ? [] : [read.problem],
      };
      if (read.ok) for (const order of read.orders) await stage(order, undefined);
    } else {
      const imported = await importSource(input.source, {
        codeLists,
        today,
        sandbox: deps.store.environments.get(input.environmentId)?.kind === 'local-sandbox',
        fileLabel: input.fileName,
        isKnownOrder,
        groupItemsOf: (clinicCode, clinicOrderId) =>
          acceptedGroupItems(deps.store, input.environmentId, clinicCode, clinicOrderId),
        ...(profile ? { profile } : input.autoProfile === false ? {} : { profiles: importProfiles(deps) }),
        ...(input.encoding ? { encoding: input.encoding } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
        ...(input.onProgress ? { onProgress: input.onProgress } : {}),
        onOrder: stage,
      });
      kind = imported.format;
      report = { ...summaryOf(imported), ...(imported.header ? { headerText: imported.header.text } : {}) };
    }
    const { headerText: _headerText, ...summary } = report;
    // The file is read: its read snapshot would keep the writer's last checkpoint from reaching the file.
    lookup.close();

    const refusal = refusalOf(report, kind, route, writer, input.fileName);
    if (refusal) return { status: 'refused', problems: refusal, summary };

    await writer.end();
    const batchId = commitBatch(deps, writer, {
      environmentId: input.environmentId,
      fileName,
      kind,
      route,
      report,
    });
    return {
      status: 'staged',
      batchId,
      orders: writer.count,
      valid: writer.validCount,
      invalid: writer.count - writer.validCount,
      notOrders: writer.notOrderCount,
      summary,
    };
  } finally {
    accepted?.close();
    await writer.close();
  }
}

/** Why the file as a whole cannot be staged, if it cannot. */
function refusalOf(
  report: StoredReport,
  kind: 'csv' | 'hl7' | 'json',
  route: OrderRoute,
  writer: StagedBatchWriter,
  file: string,
): Problem[] | undefined {
  const fatal = report.fileProblems.filter((problem) => problem.severity === 'error');
  // An import stopped part-way (a huge record, a bad batch count) would stage a partial file: refuse it whole.
  if (fatal.length > 0) return fatal;
  if (route === 'hl7' && kind !== 'hl7') {
    return [
      {
        severity: 'error',
        file,
        code: 'route.hl7NotHl7',
        text: `The HL7 forward route is for HL7 files; this file is ${kind.toUpperCase()}. Choose create-with-clinic or v2.`,
      },
    ];
  }
  if (writer.count === 0) {
    return [{ severity: 'error', file, code: 'file.noOrders', text: 'The file holds no orders.' }];
  }
  return undefined;
}

function commitBatch(
  deps: StagingDeps,
  writer: StagedBatchWriter,
  batch: {
    environmentId: string;
    fileName: string;
    kind: 'csv' | 'hl7' | 'json';
    route: OrderRoute;
    report: StoredReport;
  },
): number {
  const { store } = deps;
  const invalid = writer.count - writer.validCount;
  const rowCount = Math.max(batch.report.rowsRead, writer.count);
  const fileName = batch.fileName;
  return store.inTransaction(() => {
    const created = writer.commit({ kind: batch.kind, rowCount, invalidCount: invalid, report: batch.report });
    store.audit.append({
      actor: 'user',
      action: 'batch.imported',
      environmentId: batch.environmentId,
      batchId: created.id,
      details: {
        fileName,
        fileKind: batch.kind,
        rowCount,
        orderCount: writer.count,
        invalidCount: invalid,
        route: batch.route,
      },
    });
    return created.id;
  });
}
