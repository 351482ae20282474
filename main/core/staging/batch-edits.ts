import { FIELDS, fieldIndex, type FieldSpec } from '../importing/field-catalogue.js';
import type { BatchRecord } from '../store/batches-repo.js';
import type { OrderRoute } from '../store/order-state.js';
import type { StagedCounts, StagedOrder } from '../store/staged-orders-repo.js';
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

function batchOf(deps: StagingDeps, batchId: number): BatchRecord {
  const batch = deps.store.batches.get(batchId);
  if (!batch) throw new StagingError(`there is no batch ${batchId}`);
  return batch;
}

function assessContext(deps: StagingDeps, batch: BatchRecord): AssessContext {
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

function auditPaths(paths: readonly string[]): string {
  const joined = paths.join(', ');
  return joined.length <= MAX_AUDIT_PATHS ? joined : `${joined.slice(0, MAX_AUDIT_PATHS - 1)}…`;
}

/** Writes an edited order back with its new problems; the audit entry names the changed paths. */
function save(deps: StagingDeps, batch: BatchRecord, order: StagedOrder, outcome: EditOutcome, whole: boolean) {
  const update = reassessAfterEdit(order, outcome, whole, assessContext(deps, batch));
  if (!deps.store.stagedOrders.update(order.id, update)) {
    throw new StagingError(`staged order ${order.id} was accepted meanwhile; it cannot be edited`);
  }
  return update;
}

/** Edits one staged order and returns it as stored. Nothing changes (and nothing is audited) for a no-op edit. */
export function editStagedOrder(deps: StagingDeps, stagedOrderId: number, change: OrderChange): StagedOrder {
  const { store } = deps;
  return store.inTransaction(() => {
    const order = editable(store.stagedOrders.get(stagedOrderId), stagedOrderId);
    const batch = batchOf(deps, order.batchId);
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
    const update = save(deps, batch, order, outcome, !('edits' in change));
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
      edits.push({ path, value: text.split(request.find).join(request.replace) });
    }
  }
  return edits;
}

/** Find-and-replace on one field across a batch's staged orders, in one transaction with one audit entry. */
export function replaceInBatch(deps: StagingDeps, request: ReplaceRequest): { changed: number; counts: StagedCounts } {
  const { store } = deps;
  const batch = batchOf(deps, request.batchId);
  const field = fieldOf(request.field);
  const at = deps.now().toISOString();
  return store.inTransaction(() => {
    let changed = 0;
    for (let after = 0; ;) {
      const page = store.stagedOrders.after(batch.id, after, PAGE, { state: 'staged' });
      if (page.length === 0) break;
      after = page[page.length - 1]!.position;
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
        save(deps, batch, order, outcome, false);
        changed += 1;
      }
    }
    if (changed > 0) {
      store.audit.append({
        actor: 'user',
        action: 'batch.replaced',
        environmentId: batch.environmentId,
        batchId: batch.id,
        details: { fieldPath: field.path, orderCount: changed },
      });
    }
    return { changed, counts: store.stagedOrders.counts(batch.id) };
  });
}

/**
 * Chooses how a batch's orders will be sent and re-checks every staged order for that route (v2 needs each code
 * mapped to a number; HL7 forwarding needs the original, unedited message, so it is for HL7 batches only).
 */
export function setBatchRoute(deps: StagingDeps, batchId: number, route: OrderRoute): StagedCounts {
  const { store } = deps;
  const batch = batchOf(deps, batchId);
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
