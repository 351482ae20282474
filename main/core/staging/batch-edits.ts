import { EDIT_VALUE_MAX_CHARS } from '../../../shared/staging-contract.js';
import { FIELDS, fieldIndex, type FieldSpec } from '../model/field-catalogue.js';
import type { BatchRecord } from '../store/batches-repo.js';
import type { OrderRoute } from '../store/order-state.js';
import type { StagedCounts, StagedOrder } from '../store/staged-orders-repo.js';
import type { CellChange } from '../store/staged-edits-repo.js';
import { cellChanges } from './cell-changes.js';
import { applyFieldEdits, EditError, replaceBody, type EditOutcome, type FieldEdit } from './order-edits.js';
import { reassessAfterEdit, type AssessContext } from './reassess.js';
import { problemsForRoute } from './route-request.js';
import { StagingError, type StagingDeps } from './staging-deps.js';

/**
 * The admin's changes to a staged batch: edit one order (some fields, or the whole body), find and replace one
 * field across the batch, choose the route. Every change re-validates what it touched and is audited with field
 * paths only, never values (they are patient data). Accepted orders and HL7 cancel messages cannot be edited.
 */

export type OrderChange = { edits: FieldEdit[] } | { body: Record<string, unknown> };

const MAX_AUDIT_PATHS = 200;
const PAGE = 500;

export function batchOf(deps: StagingDeps, batchId: number): BatchRecord {
  const batch = deps.store.batches.get(batchId);
  if (!batch) throw new StagingError(`there is no batch ${batchId}`);
  return batch;
}

/** A batch the admin may still change: not discarded. */
export function changeableBatch(deps: StagingDeps, batchId: number): BatchRecord {
  const batch = batchOf(deps, batchId);
  if (batch.discardedAt !== null) {
    throw new StagingError(`batch ${batchId} was discarded; its orders can no longer be changed or accepted`);
  }
  return batch;
}

export function assessContext(deps: StagingDeps, batch: BatchRecord): AssessContext {
  const { store } = deps;
  return {
    codeLists: deps.codeListsFor(batch.environmentId),
    today: deps.now(),
    route: batch.route,
    isKnownOrder: (clinicCode, clinicOrderId) =>
      store.orders.findAccepted(batch.environmentId, clinicCode, clinicOrderId) !== undefined,
    earlierInBatch: (clinicCode, clinicOrderId, position) =>
      store.stagedOrders.earlierWithIdentity(batch.id, clinicCode, clinicOrderId, position),
  };
}

function editable(order: StagedOrder | undefined, id: number): StagedOrder {
  if (!order) throw new StagingError(`there is no staged order ${id}`);
  if (order.state === 'accepted')
    throw new StagingError(`staged order ${id} is already in the outbox; it cannot be edited`);
  if (order.orderControl === 'CA') {
    throw new StagingError(`staged order ${id} is an HL7 cancel of an order sent earlier; it has nothing to edit`);
  }
  return order;
}

export function auditPaths(paths: readonly string[]): string {
  const joined = paths.join(', ');
  return joined.length <= MAX_AUDIT_PATHS ? joined : `${joined.slice(0, MAX_AUDIT_PATHS - 1)}…`;
}

/**
 * Writes an edited order back with its new problems, and returns what it changed cell by cell (for the batch's
 * edit history: undo, redo, the order's history).
 */
function save(deps: StagingDeps, batch: BatchRecord, order: StagedOrder, outcome: EditOutcome, whole: boolean) {
  const update = reassessAfterEdit(order, outcome, whole, assessContext(deps, batch));
  if (!deps.store.stagedOrders.update(order.id, update)) {
    throw new StagingError(`staged order ${order.id} was accepted meanwhile; it cannot be edited`);
  }
  return { update, changes: cellChanges(order, outcome, update.cleared) };
}

/** Edits one staged order and returns it as stored. Nothing changes (and nothing is audited) for a no-op edit. */
export function editStagedOrder(deps: StagingDeps, stagedOrderId: number, change: OrderChange): StagedOrder {
  const { store } = deps;
  return store.inTransaction(() => {
    const order = editable(store.stagedOrders.get(stagedOrderId), stagedOrderId);
    const batch = changeableBatch(deps, order.batchId);
    const at = deps.now().toISOString();
    let outcome: EditOutcome;
    try {
      outcome =
        'edits' in change
          ? applyFieldEdits(order.body, order.provenance, change.edits, {
              today: deps.now(),
              at,
              file: order.source.file,
            })
          : replaceBody(order.body, order.provenance, change.body, at);
    } catch (error) {
      if (error instanceof EditError) throw new StagingError(error.message);
      throw error;
    }
    if (outcome.changed.length === 0) return order;
    const { update, changes } = save(deps, batch, order, outcome, !('edits' in change));
    store.stagedEdits.record({ batchId: batch.id, kind: 'edit', field: null, at }, changes);
    store.audit.append({
      actor: 'user',
      action: 'order.edited',
      environmentId: batch.environmentId,
      batchId: batch.id,
      clinicCode: update.clinicCode,
      clinicOrderId: update.clinicOrderId,
      details: { fieldPath: auditPaths(outcome.changed) },
    });
    return store.stagedOrders.get(stagedOrderId)!;
  });
}

export interface ReplaceRequest {
  batchId: number;
  /** A body path (`prescription.courierCode`, `prescribedItems.*.dmdCode`) or a template column (`courierCode`). */
  field: string;
  /** The value to find; with `exact`, an empty text finds blank fields. */
  find: string;
  replace: string;
  /** `exact` (default): the whole value equals `find`; `contains`: every occurrence of `find` is replaced. */
  match?: 'exact' | 'contains';
  /** Only count what would change (orders and cells); nothing is written or audited. */
  dryRun?: boolean;
}

export interface ReplaceOutcome {
  /** Orders changed (or, for a dry run, that would change). */
  changed: number;
  /** Cells changed (an item field counts once per item). */
  cells: number;
  counts: StagedCounts;
}

function fieldOf(key: string): FieldSpec {
  const index = fieldIndex(key);
  if (index === undefined) throw new StagingError(`${key} is not a field of an order`);
  return FIELDS[index]!;
}

/** A field's value as text, as find compares it (body leaves are text, numbers or booleans). */
const asText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : value === undefined || value === null
        ? ''
        : JSON.stringify(value);

/** The edits find-and-replace makes to one order (one per matching field; item fields per item). */
function replacementsFor(order: StagedOrder, field: FieldSpec, request: ReplaceRequest): FieldEdit[] {
  const body = (order.body ?? {}) as Record<string, unknown>;
  const [container, leaf] = field.path.split('.') as [string, string | undefined];
  const candidates: Array<{ path: string; value: unknown }> = [];
  if (field.level === 'item') {
    const items = Array.isArray(body.prescribedItems) ? (body.prescribedItems as Record<string, unknown>[]) : [];
    const itemLeaf = field.path.split('.').at(-1)!;
    items.forEach((item, index) =>
      candidates.push({ path: `prescribedItems.${index}.${itemLeaf}`, value: (item ?? {})[itemLeaf] }),
    );
  } else if (leaf === undefined) {
    candidates.push({ path: field.path, value: body[container] });
  } else {
    candidates.push({ path: field.path, value: ((body[container] ?? {}) as Record<string, unknown>)[leaf] });
  }
  const edits: FieldEdit[] = [];
  for (const { path, value } of candidates) {
    const text = asText(value);
    if ((request.match ?? 'exact') === 'exact') {
      if (text.trim() === request.find.trim()) edits.push({ path, value: request.replace });
    } else if (request.find !== '' && text.includes(request.find)) {
      const pieces = text.split(request.find);
      checkReplacedLength(order, path, text, pieces.length - 1, request);
      edits.push({ path, value: pieces.join(request.replace) });
    }
  }
  return edits;
}

/**
 * Every occurrence replaced multiplies a value: a cell of 1,000 characters with each one replaced by 1,000 was a
 * million, and the next call a V8 string past its limit, a fatal error that ended the core. So a replacement may not
 * make a value longer than an edit may write, unless it is no longer than the value it replaces. Counted before
 * the text is built.
 */
function checkReplacedLength(
  order: StagedOrder,
  path: string,
  text: string,
  occurrences: number,
  request: ReplaceRequest,
): void {
  const length = text.length + occurrences * (request.replace.length - request.find.length);
  if (length <= EDIT_VALUE_MAX_CHARS || length <= text.length) return;
  throw new StagingError(
    `Replacing each occurrence in ${path} of order ${order.position} would make it ` +
      `${length.toLocaleString('en-GB')} characters long; a find and replace may make a value at most ` +
      `${EDIT_VALUE_MAX_CHARS.toLocaleString('en-GB')}. Nothing was replaced.`,
  );
}

/** Whether a `contains` replacement can lengthen a value, so it is counted through first (nothing written). */
const mayLengthen = (request: ReplaceRequest): boolean =>
  request.match === 'contains' && request.replace.length > request.find.length;

/**
 * Find-and-replace on one field across a batch's staged orders, in steps of `stepOrders` orders, each its own
 * transaction, with `pause()` awaited between them, so a 50,000-order batch never holds the core's loop for long
 * (issue #14). It is still one change: one step of the batch's edit history, which the later transactions extend
 * (one undo takes all of it back), and one `batch.replaced` entry with the total at the end; every step before the
 * last that changed something records `batch.replacing` with its count, so the log says what happened if the app
 * stops half-way. Only the orders the batch held when it began are looked at (a live intake may append meanwhile).
 * A dry run counts the orders and cells it would change, in the same steps, and writes nothing. The caller keeps
 * other changes of the batch out while it runs (StagingService).
 */
export async function replaceInBatch(
  deps: StagingDeps,
  request: ReplaceRequest,
  options: { stepOrders: number; pause: () => Promise<void> },
): Promise<ReplaceOutcome> {
  const { store } = deps;
  const field = fieldOf(request.field);
  // Refused before any step commits, so a replacement that makes a value too long changes nothing.
  if (!request.dryRun && mayLengthen(request)) await replaceInBatch(deps, { ...request, dryRun: true }, options);
  const at = deps.now().toISOString();
  const upTo = store.stagedOrders.counts(changeableBatch(deps, request.batchId).id).total;
  let after = 0;
  let changed = 0;
  let cells = 0;
  let stepId: number | undefined;
  for (;;) {
    // Checked again at every step: a discard in between is seen.
    const batch = changeableBatch(deps, request.batchId);
    const run = () => {
      const page = store.stagedOrders
        .after(batch.id, after, options.stepOrders, { state: 'staged' })
        .filter((order) => order.position <= upTo);
      const done = page.length < options.stepOrders || page.at(-1)!.position >= upTo;
      if (page.length > 0) after = page.at(-1)!.position;
      let stepChanged = 0;
      const changes: CellChange[] = [];
      for (const order of page) {
        if (order.orderControl === 'CA') continue;
        const edits = replacementsFor(order, field, request);
        if (edits.length === 0) continue;
        const outcome = applyFieldEdits(order.body, order.provenance, edits, {
          today: deps.now(),
          at,
          file: order.source.file,
        });
        if (outcome.changed.length === 0) continue;
        stepChanged += 1;
        cells += outcome.changed.length;
        if (request.dryRun) continue;
        changes.push(...save(deps, batch, order, outcome, false).changes);
      }
      changed += stepChanged;
      if (request.dryRun) return done;
      if (changes.length > 0) {
        if (stepId === undefined) {
          stepId = store.stagedEdits.record({ batchId: batch.id, kind: 'replace', field: field.path, at }, changes);
        } else store.stagedEdits.append(stepId, changes);
      }
      const audit = (action: string, orderCount: number) =>
        store.audit.append({
          actor: 'user',
          action,
          environmentId: batch.environmentId,
          batchId: batch.id,
          details: { fieldPath: field.path, orderCount },
        });
      if (done && changed > 0) audit('batch.replaced', changed);
      else if (!done && stepChanged > 0) audit('batch.replacing', stepChanged);
      return done;
    };
    const done = request.dryRun ? run() : store.inTransaction(run);
    if (done) return { changed, cells, counts: store.stagedOrders.counts(request.batchId) };
    await options.pause();
  }
}

/**
 * Chooses how a batch's orders will be sent and re-checks every staged order for that route (v2 needs each code
 * mapped to a number; HL7 forwarding needs the original, unedited message, so it is for HL7 batches only).
 */
export function setBatchRoute(deps: StagingDeps, batchId: number, route: OrderRoute): StagedCounts {
  const { store } = deps;
  const batch = changeableBatch(deps, batchId);
  if (route === 'hl7' && batch.kind !== 'hl7') {
    throw new StagingError(`batch ${batchId} is ${batch.kind.toUpperCase()}; only HL7 batches can be forwarded as HL7`);
  }
  if (route === batch.route) return store.stagedOrders.counts(batchId);
  const codeLists = deps.codeListsFor(batch.environmentId);
  return store.inTransaction(() => {
    store.batches.setRoute(batchId, route);
    for (let after = 0; ;) {
      const page = store.stagedOrders.after(batchId, after, PAGE, { state: 'staged' });
      if (page.length === 0) break;
      after = page[page.length - 1]!.position;
      for (const order of page) {
        const routed = problemsForRoute(order, order.problems, route, codeLists);
        store.stagedOrders.update(order.id, { ...order, ...routed, edited: false });
      }
    }
    store.audit.append({
      actor: 'user',
      action: 'batch.route-changed',
      environmentId: batch.environmentId,
      batchId,
      details: { route },
    });
    return store.stagedOrders.counts(batchId);
  });
}

/**
 * Discards a batch the admin does not want (every order rejected, or no longer wanted): its staged orders are never
 * accepted, edited or re-routed after this. Orders already accepted from it are not touched (they are in the
 * outbox: cancel them there); a batch with no staged order left has nothing to discard and is refused. Audited as
 * `batch.discarded` with the count of staged orders it kept from the outbox.
 */
export function discardBatch(deps: StagingDeps, batchId: number): { discarded: number; counts: StagedCounts } {
  const { store } = deps;
  return store.inTransaction(() => {
    const batch = changeableBatch(deps, batchId);
    const counts = store.stagedOrders.counts(batchId);
    if (counts.staged === 0) {
      throw new StagingError(
        `every order of batch ${batchId} is already accepted into the outbox; there is nothing to discard (cancel orders on the Orders screen)`,
      );
    }
    store.batches.discard(batchId);
    store.audit.append({
      actor: 'user',
      action: 'batch.discarded',
      environmentId: batch.environmentId,
      batchId,
      details: { orderCount: counts.staged },
    });
    return { discarded: counts.staged, counts };
  });
}
