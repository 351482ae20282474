import { setImmediate as nextTurn } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import type { CodeLists } from '../../../shared/environment.js';
import type {
  AcceptOutcome,
  BatchView,
  ImportOutcome,
  SavedProfileView,
  StagedOrderView,
} from '../../../shared/staging-views.js';
import { sameSenderWarning, type SameSenderWarning } from '../importing/hl7-profile-choice.js';
import { headerFingerprint, type MappingProfile } from '../model/mapping-profile.js';
import type { BatchRecord } from '../store/batches-repo.js';
import type { OrderRoute } from '../store/order-state.js';
import type { SavedProfile } from '../store/mapping-profiles-repo.js';
import type { OpenRowSink } from '../store/staged-batch-writer.js';
import type { StagedCounts } from '../store/staged-orders-repo.js';
import type { Store } from '../store/store.js';
import { acceptBatch, acceptBatchInSteps, type AcceptRange, type CancelCheck } from './accept-batch.js';
import {
  discardBatch,
  editStagedOrder,
  replaceInBatch,
  setBatchRoute,
  type OrderChange,
  type ReplaceOutcome,
  type ReplaceRequest,
} from './batch-edits.js';
import {
  orderHistory,
  redoNextChange,
  undoLastChange,
  undoState,
  type OrderHistoryItem,
  type StepOutcome,
} from './edit-history.js';
import { templateGuideText } from '../importing/template-guide.js';
import { errorCsv, exampleTemplateCsv, notOrderLines, templateCsv, type ExportCounts } from './batch-exports.js';
import { refusedFileReport } from '../importing/import-file.js';
import {
  openImportSource,
  resolveOwnPath,
  type ImportSource,
  type OpenImportSource,
  type OpenedImport,
} from '../importing/import-source.js';
import type { Problem } from '../model/imported-order.js';
import { RESERVED_PROFILE_NAMES, stageFile, summaryOf, type StoredReport } from './stage-file.js';
import { saveProfileAudited } from './profile-writes.js';
import { StagingError, type StagingDeps } from './staging-deps.js';
import { whyUnreadable } from '../platform/file-access.js';
import { toBatchView, toStagedOrderView } from './staging-views.js';
import { workerRowSink } from './worker-row-sink.js';

/**
 * Staging as the front ends use it (contract handlers, CLI): imports with progress and cancel, review pages,
 * edits, route, accept (then the outbox is woken), exports and mapping profiles, over one store.
 */

export interface StagingServiceDeps {
  store: Store;
  /** An environment's code lists; throws for an unknown environment. */
  codeListsFor(environmentId: string): CodeLists;
  now?: () => Date;
  /** Woken after an accept, so queued orders go without waiting for the next poll. */
  notifyOutbox?(environmentId: string): void;
  onProgress?(progress: {
    importId: string;
    environmentId: string;
    bytes: number;
    totalBytes: number;
    rows: number;
  }): void;
  onBatchChanged?(change: { environmentId: string; batchId: number }): void;
  /** Where imports write their rows; default a worker thread per import (worker-row-sink.ts). */
  openRowSink?: OpenRowSink;
}

export interface ImportRequest {
  environmentId: string;
  /**
   * An absolute path to a regular file with every link on it resolved, as an import path policy answers (the
   * CLI's own paths through ANY_PATH): opened once, without following a link, and refused when the file opened is
   * not the one at this path.
   */
  path?: string;
  /** A file its caller opened (a watched folder's, already hashed) and closes. */
  source?: ImportSource;
  /** A browser upload: its name and text. */
  upload?: { name: string; content: string };
  profile?: string;
  /** False: no saved profile is chosen by the file's header or sender. */
  autoProfile?: boolean;
  encoding?: string;
  route?: OrderRoute;
  importId?: string;
  /** Also cancels the import (the CLI's SIGINT). */
  signal?: AbortSignal;
}

const UPLOADS_DIR = 'import-uploads';
/**
 * Staged orders accepted per transaction by acceptAll: about 40 ms of the core's loop each on a quiet 2-core machine
 * (500 held it 85-115 ms a step, and a cheap call waited up to 262 ms: bench/README.md, session 16).
 */
export const ACCEPT_STEP_ORDERS = 250;
/**
 * Staged orders looked at per transaction by a find and replace: the loop's longest wait about 45 ms when all of
 * 20,000 change (500 held it 80-120 ms: bench/README.md, session 16).
 */
export const REPLACE_STEP_ORDERS = 250;

/** An upload left behind by a process that died mid-import is removed by the next upload after this long. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/**
 * Removes every upload in the data directory: at a core's start none is being imported (the data directory's lock
 * is this process's, and its imports have not begun), so any there is one a core that died mid-import left, the
 * page's whole file, patient data (docs/security.md, finding 39).
 */
export function clearLeftoverUploads(dataDir: string): void {
  rmSync(join(dataDir, UPLOADS_DIR), { recursive: true, force: true });
}

export class StagingService {
  readonly #deps: StagingServiceDeps;
  readonly #staging: StagingDeps;
  /** Running imports by id, for `import.cancel`. */
  readonly #running = new Map<string, AbortController>();
  /**
   * Batches being changed in steps (acceptAll, replace): one such change of a batch at a time, and no edit, undo,
   * redo, route change or discard of it meanwhile.
   */
  readonly #busy = new Map<number, 'being accepted' | 'being changed by a find and replace'>();

  constructor(deps: StagingServiceDeps) {
    this.#deps = deps;
    this.#staging = {
      store: deps.store,
      codeListsFor: (environmentId) => deps.codeListsFor(environmentId),
      now: deps.now ?? (() => new Date()),
      openRowSink: deps.openRowSink ?? workerRowSink,
    };
  }

  get #store(): Store {
    return this.#deps.store;
  }

  /** An environment's code lists, as imports validate against them; throws for an unknown environment. */
  codeListsFor(environmentId: string): CodeLists {
    return this.#deps.codeListsFor(environmentId);
  }

  async importFile(request: ImportRequest): Promise<ImportOutcome> {
    this.#deps.codeListsFor(request.environmentId); // an unknown environment is refused before any reading
    if (request.profile && RESERVED_PROFILE_NAMES.includes(request.profile) && request.profile !== 'template') {
      throw new StagingError(
        `"${request.profile}" is not a saved profile; leave the profile out to have one suggested`,
      );
    }
    const importId = request.importId ?? randomUUID();
    if (this.#running.has(importId)) throw new StagingError(`an import named ${importId} is already running`);
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onOuterAbort, { once: true });
    if (request.signal?.aborted) controller.abort(request.signal.reason);
    this.#running.set(importId, controller);
    let uploaded: string | undefined;
    let opened: OpenImportSource | undefined;
    try {
      let source: ImportSource;
      let fileName: string;
      if (request.source) {
        source = request.source;
        fileName = basename(source.path);
      } else {
        let path: string;
        if (request.upload) {
          uploaded = await this.#writeUpload(request.upload.content);
          path = await resolveOwnPath(uploaded);
          fileName = basename(request.upload.name);
        } else {
          path = request.path ?? '';
          fileName = basename(path);
        }
        const result = await openForImport(path, fileName);
        if (!result.ok) return refusedFile(result.problem, request);
        source = opened = result.source;
      }
      const result = await stageFile(this.#staging, {
        environmentId: request.environmentId,
        source,
        fileName,
        signal: controller.signal,
        onProgress: (progress) =>
          this.#deps.onProgress?.({ importId, environmentId: request.environmentId, ...progress }),
        ...(request.profile ? { profileName: request.profile } : {}),
        ...(request.autoProfile === false ? { autoProfile: false } : {}),
        ...(request.encoding ? { encoding: request.encoding } : {}),
        ...(request.route ? { route: request.route } : {}),
      });
      if (result.status === 'refused') return result;
      this.#deps.onBatchChanged?.({ environmentId: request.environmentId, batchId: result.batchId });
      return result;
    } catch (error) {
      if (controller.signal.aborted) return { status: 'cancelled' };
      throw error;
    } finally {
      request.signal?.removeEventListener('abort', onOuterAbort);
      this.#running.delete(importId);
      await opened?.close();
      if (uploaded) await rm(uploaded, { force: true });
    }
  }

  /** Cancels a running import; nothing of it is staged. False when no such import is running. */
  cancelImport(importId: string): boolean {
    const controller = this.#running.get(importId);
    if (!controller) return false;
    controller.abort(new Error('import cancelled'));
    return true;
  }

  /** Newest first, `limit` of them (100 unless given); `before`: the page after the one ending with that batch. */
  listBatches(environmentId?: string, page: { limit?: number; before?: number } = {}): BatchView[] {
    if (environmentId !== undefined) this.#deps.codeListsFor(environmentId);
    return this.#store.batches
      .list(environmentId, { limit: page.limit ?? 100, ...(page.before !== undefined ? { before: page.before } : {}) })
      .map((batch) => this.#view(batch));
  }

  batch(batchId: number): BatchRecord {
    const batch = this.#store.batches.get(batchId);
    if (!batch) throw new StagingError(`there is no batch ${batchId}`);
    return batch;
  }

  getBatch(
    batchId: number,
    page: { offset?: number; limit?: number; onlyProblems?: boolean } = {},
  ): { batch: BatchView; orders: StagedOrderView[]; total: number } {
    const batch = this.batch(batchId);
    const codeLists = this.#deps.codeListsFor(batch.environmentId);
    const { orders, total } = this.#store.stagedOrders.page({
      batchId,
      offset: page.offset ?? 0,
      limit: page.limit ?? 100,
      ...(page.onlyProblems ? { onlyProblems: true } : {}),
    });
    return {
      batch: this.#view(batch),
      orders: orders.map((order) => toStagedOrderView(this.#store, order, batch.route, codeLists)),
      total,
    };
  }

  /** Every staged order of a batch as the review shows it, a page at a time (the CLI's `batch show`). */
  *walkBatch(batchId: number): Generator<StagedOrderView[]> {
    const batch = this.batch(batchId);
    const codeLists = this.#deps.codeListsFor(batch.environmentId);
    for (let after = 0; ;) {
      const page = this.#store.stagedOrders.after(batchId, after, 500);
      if (page.length === 0) return;
      after = page[page.length - 1]!.position;
      yield page.map((order) => toStagedOrderView(this.#store, order, batch.route, codeLists));
    }
  }

  editOrder(stagedOrderId: number, change: OrderChange): StagedOrderView {
    const staged = this.#store.stagedOrders.get(stagedOrderId);
    if (staged) this.#notBusy(staged.batchId, 'edit it');
    const order = editStagedOrder(this.#staging, stagedOrderId, change);
    const batch = this.batch(order.batchId);
    this.#deps.onBatchChanged?.({ environmentId: batch.environmentId, batchId: batch.id });
    return toStagedOrderView(this.#store, order, batch.route, this.#deps.codeListsFor(batch.environmentId));
  }

  /** Find and replace in steps of REPLACE_STEP_ORDERS orders, a turn of the loop between them (replaceInBatch). */
  async replace(request: ReplaceRequest): Promise<ReplaceOutcome> {
    const { batchId } = request;
    this.#notBusy(batchId, request.dryRun ? 'count what would change' : 'replace');
    if (!request.dryRun) this.#busy.set(batchId, 'being changed by a find and replace');
    try {
      const result = await replaceInBatch(this.#staging, request, {
        stepOrders: REPLACE_STEP_ORDERS,
        pause: () => nextTurn(),
      });
      if (result.changed > 0 && !request.dryRun) {
        this.#deps.onBatchChanged?.({ environmentId: this.batch(batchId).environmentId, batchId });
      }
      return result;
    } finally {
      if (!request.dryRun) this.#busy.delete(batchId);
    }
  }

  #notBusy(batchId: number, what: string): void {
    const doing = this.#busy.get(batchId);
    if (doing) throw new StagingError(`batch ${batchId} is ${doing}; ${what} once that has finished`);
  }

  /** Takes back the batch's latest change (an edit, or a whole find and replace). */
  undo(batchId: number): StepOutcome & { counts: StagedCounts } {
    this.#notBusy(batchId, 'undo');
    return this.#stepped(batchId, undoLastChange(this.#staging, batchId));
  }

  /** Makes the batch's earliest undone change again. */
  redo(batchId: number): StepOutcome & { counts: StagedCounts } {
    this.#notBusy(batchId, 'redo');
    return this.#stepped(batchId, redoNextChange(this.#staging, batchId));
  }

  #stepped(batchId: number, outcome: StepOutcome): StepOutcome & { counts: StagedCounts } {
    if (outcome.step) this.#deps.onBatchChanged?.({ environmentId: this.batch(batchId).environmentId, batchId });
    return { ...outcome, counts: this.#store.stagedOrders.counts(batchId) };
  }

  /** A staged order's changes, newest first. */
  orderHistory(stagedOrderId: number): OrderHistoryItem[] {
    return orderHistory(this.#staging, stagedOrderId);
  }

  /** The nearest order with a problem after or before a position of the batch (see `batches.findProblem`). */
  findProblem(
    batchId: number,
    fromPosition: number,
    direction: 'next' | 'previous',
  ): { stagedOrderId: number; position: number; problemIndex: number } | null {
    this.batch(batchId);
    const found = this.#store.stagedOrders.problemNear(batchId, fromPosition, direction);
    return found ? { stagedOrderId: found.id, position: found.position, problemIndex: found.problemIndex } : null;
  }

  /** Problems of a batch's staged orders by field (item fields as `prescribedItems.*.x`), errors and warnings. */
  problemFields(batchId: number): Array<{ field: string | null; errors: number; warnings: number }> {
    this.batch(batchId);
    const byField = new Map<string | null, { field: string | null; errors: number; warnings: number }>();
    for (const row of this.#store.stagedOrders.problemFields(batchId)) {
      const field = row.field === null ? null : row.field.replace(/^prescribedItems\.\d+\./, 'prescribedItems.*.');
      const entry = byField.get(field) ?? { field, errors: 0, warnings: 0 };
      if (row.severity === 'error') entry.errors += row.count;
      else entry.warnings += row.count;
      byField.set(field, entry);
    }
    return [...byField.values()];
  }

  /** Discards a batch: its staged orders are never accepted (see `discardBatch`). */
  discard(batchId: number): { discarded: number; counts: StagedCounts } {
    this.#notBusy(batchId, 'discard what stays');
    const outcome = discardBatch(this.#staging, batchId);
    this.#deps.onBatchChanged?.({ environmentId: this.batch(batchId).environmentId, batchId });
    return outcome;
  }

  #view(batch: BatchRecord): BatchView {
    return toBatchView(this.#store, batch, undoState(this.#staging, batch));
  }

  setRoute(batchId: number, route: OrderRoute): StagedCounts {
    this.#notBusy(batchId, 'change the route');
    const counts = setBatchRoute(this.#staging, batchId, route);
    this.#deps.onBatchChanged?.({ environmentId: this.batch(batchId).environmentId, batchId });
    return counts;
  }

  /**
   * Accepts the whole batch in steps of ACCEPT_STEP_ORDERS orders, a turn of the event loop between them, so the
   * core keeps answering while 50,000 orders go into the outbox (bench/responsiveness-benchmark.ts); the outbox is
   * woken as soon as the first step has queued something.
   *
   * `seen`: accept only the first `seen` orders of the batch (those the admin reviewed; see batches.accept).
   * `cancelCheck`: live intake's check of each cancel (a watched folder's file; see CancelCheck).
   */
  async acceptAll(batchId: number, seen?: number, cancelCheck?: CancelCheck): Promise<AcceptOutcome> {
    if (this.#busy.get(batchId) === 'being accepted') {
      throw new StagingError(`batch ${batchId} is already being accepted`);
    }
    this.#notBusy(batchId, 'accept it');
    const { environmentId } = this.batch(batchId);
    this.#busy.set(batchId, 'being accepted');
    try {
      let woken = 0;
      const outcome = await acceptBatchInSteps(this.#staging, batchId, {
        stepOrders: ACCEPT_STEP_ORDERS,
        ...(seen === undefined ? {} : { seen }),
        ...(cancelCheck ? { cancelCheck } : {}),
        pause: () => nextTurn(),
        onStep: (queued) => {
          if (queued > woken) this.#deps.notifyOutbox?.(environmentId);
          woken = queued;
        },
      });
      this.#deps.onBatchChanged?.({ environmentId, batchId });
      return outcome;
    } finally {
      this.#busy.delete(batchId);
    }
  }

  /** Accepts the whole batch in one transaction, or (live intake) only the orders in `range`. */
  accept(batchId: number, range?: AcceptRange): AcceptOutcome {
    const outcome = acceptBatch(this.#staging, batchId, range);
    if (outcome.accepted > 0 || outcome.cancelled > 0) this.#deps.notifyOutbox?.(outcome.environmentId);
    this.#deps.onBatchChanged?.({ environmentId: outcome.environmentId, batchId });
    return outcome;
  }

  /**
   * The error CSV, a chunk at a time (the CLI writes it to a file as it comes); `counts` counts orders and rows.
   * Once the last chunk has been taken, the export is recorded in the audit log (audited(), below).
   */
  errorCsv(batchId: number, counts: ExportCounts = { orders: 0, rows: 0 }): Generator<string> {
    const batch = this.batch(batchId);
    return this.#audited('batch.errors.exported', batch, errorCsv(this.#store, batch, counts), counts);
  }

  /** A line for each entry of the batch that is no order at all (a message of another type…): which, and why. */
  notOrderLines(batchId: number): Generator<string> {
    return notOrderLines(this.#store, this.batch(batchId).id);
  }

  templateCsv(batchId: number, counts: ExportCounts = { orders: 0, rows: 0 }): Generator<string> {
    const batch = this.batch(batchId);
    return this.#audited('batch.template.exported', batch, templateCsv(this.#store, batchId, counts), counts);
  }

  /**
   * A bulk export of patient data is recorded like a viewing of one order's source: which export, of which batch,
   * how many orders and rows (never a value from them, nor where the file went). The entry is appended when the
   * consumer takes the end of the export, so an export abandoned half-way (a write that failed) is not recorded;
   * the app's calls and the CLI remove their file when the entry cannot be written.
   */
  *#audited(
    action: 'batch.errors.exported' | 'batch.template.exported',
    batch: BatchRecord,
    chunks: Generator<string>,
    counts: ExportCounts,
  ): Generator<string> {
    yield* chunks;
    this.#store.audit.append({
      actor: 'user',
      action,
      environmentId: batch.environmentId,
      batchId: batch.id,
      details: { format: 'csv', orderCount: counts.orders, rowCount: counts.rows },
    });
  }

  exampleTemplate(): { fileName: string; text: string; guide: { fileName: string; text: string } } {
    const fileName = 'rx-batch-template.csv';
    return {
      fileName,
      text: exampleTemplateCsv({ bom: true }),
      // With a byte order mark, so Notepad and TextEdit read it as UTF-8 like the template.
      guide: { fileName: 'rx-batch-template-columns.txt', text: `\ufeff${templateGuideText(fileName)}` },
    };
  }

  listProfiles(): SavedProfileView[] {
    return this.#store.mappingProfiles.list().map(toProfileView);
  }

  /**
   * Saves a profile; with `fromBatchId`, that import's header cells (CSV) or sender (HL7) are kept with it, so
   * the next file with that header or from that sender is read with it. A profile saved again without a sender
   * keeps the one it had, and so does one saved without live intake's binding (`clinics`, `peers`: the import
   * screen's save knows nothing of them, and must not loosen them). `senderWarning`: other saved profiles are for
   * the same HL7 sender (its files will then ask which to use). `givenHeaderCells`: the header cells a profile file
   * brought (CLI `profile import`), where there is no batch to take them from.
   */
  saveProfile(
    profile: MappingProfile,
    fromBatchId?: number,
    givenHeaderCells: readonly string[] | null = null,
  ): SavedProfileView & { senderWarning: SameSenderWarning | null } {
    if (RESERVED_PROFILE_NAMES.includes(profile.name)) {
      throw new StagingError(`"${profile.name}" is a name the importer uses itself; choose another`);
    }
    let headerCells = givenHeaderCells;
    let sender = profile.hl7Sender;
    if (fromBatchId !== undefined) {
      const report = this.batch(fromBatchId).report as StoredReport | null;
      headerCells = report?.headerCells ?? null;
      sender ??= report?.hl7Sender;
    }
    const existing = this.#store.mappingProfiles.get(profile.name);
    const before = existing?.profile;
    sender ??= before?.hl7Sender;
    const clinics = profile.clinics ?? before?.clinics;
    const peers = profile.peers ?? before?.peers;
    // What chooses a CSV profile for the next file with its header: the header's own fingerprint, from the cells of
    // the import it is saved from (or kept from an earlier save). The Import screen's mapping step sends none, and a
    // profile saved without one was never chosen again (not by the next file, a watched folder or the CLI).
    const cells = headerCells ?? existing?.headerCells ?? null;
    const fingerprint = cells ? headerFingerprint(cells) : (profile.headerFingerprint ?? before?.headerFingerprint);
    const toSave = {
      ...profile,
      ...(fingerprint ? { headerFingerprint: fingerprint } : {}),
      ...(sender ? { hl7Sender: sender } : {}),
      ...(clinics ? { clinics } : {}),
      ...(peers ? { peers } : {}),
    };
    const saved = saveProfileAudited(this.#store, toSave, headerCells);
    const others = sender ? this.#store.mappingProfiles.list().map((entry) => entry.profile) : [];
    return { ...toProfileView(saved), senderWarning: sameSenderWarning(saved.profile, others) };
  }

  async #writeUpload(content: string): Promise<string> {
    // Under the data directory (private, 0700), not the shared temp dir: an upload is patient data.
    const dir = join(this.#store.dataDir, UPLOADS_DIR);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const now = Date.now();
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > STALE_UPLOAD_MS) await rm(path, { force: true });
    }
    const file = join(dir, `${randomUUID()}.upload`);
    await writeFile(file, content, { encoding: 'utf8', mode: 0o600 });
    return file;
  }
}

function toProfileView(saved: SavedProfile): SavedProfileView {
  return {
    name: saved.profile.name,
    headerFingerprint: saved.profile.headerFingerprint ?? null,
    profile: saved.profile,
    updatedAt: saved.updatedAt,
  };
}

/** Opens the file to import, once (import-source.ts); what cannot be opened at all is a StagingError. */
async function openForImport(path: string, fileName: string): Promise<OpenedImport> {
  if (!isAbsolute(path)) throw new StagingError(`${path}: is not an absolute path`);
  try {
    return await openImportSource(path, fileName);
  } catch (error) {
    throw new StagingError(`${path}: ${whyUnreadable(error)}`);
  }
}

/** A file refused before any of it was read (a FIFO, a folder, a link, a file swapped in): nothing is staged. */
function refusedFile(problem: Problem, request: ImportRequest): ImportOutcome {
  const report = refusedFileReport(request.path ?? '', problem, request.encoding ? { encoding: request.encoding } : {});
  return { status: 'refused', problems: [problem], summary: summaryOf(report) };
}
