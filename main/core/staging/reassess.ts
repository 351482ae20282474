import type { CodeLists } from '../../../shared/environment.js';
import type { Location } from '../importing/problems.js';
import type { Problem, Provenance } from '../model/imported-order.js';
import { validateOrder } from '../importing/validate-order.js';
import { STICKY_IMPORT_PROBLEMS } from '../model/sticky-problems.js';
import type { OrderRoute } from '../store/order-state.js';
import type { StagedOrder, StagedOrderUpdate, StagedProvenance } from '../store/staged-orders-repo.js';
import type { EditOutcome } from './order-edits.js';
import { ROUTE_PROBLEM, problemsForRoute } from './route-request.js';

/**
 * Re-validation after an edit, with the same `validateOrder` the importer ran. An order's problems are of two
 * sorts: those the validator derives from the body alone (re-derived now, from the new body), and those only the
 * import could see (rows that disagreed, an unreadable cell, a malformed HL7 message, a duplicate in the file).
 * The second sort stays until the admin edits the field it is about (or replaces the whole body); a few never go
 * (STICKY_IMPORT_PROBLEMS: rows naming two patients). Which sort a problem is, is learnt by asking the validator
 * about the old body: nothing here lists rule codes by hand.
 * Duplicates are checked afresh: against orders already accepted, and against earlier orders of the batch.
 */

export interface AssessContext {
  codeLists: CodeLists;
  today: Date;
  route: OrderRoute;
  /** Already queued or sent in this environment. */
  isKnownOrder(clinicCode: string, clinicOrderId: string): boolean;
  /** Position of an earlier new order of the same batch with this identity. */
  earlierInBatch(clinicCode: string, clinicOrderId: string, position: number): number | undefined;
}

const RECHECKED = new Set(['order.alreadyKnown', 'order.duplicateInFile']);
const key = (problem: Pick<Problem, 'code' | 'field'>) => `${problem.code}\u0000${problem.field ?? ''}`;

function touches(field: string | undefined, changed: readonly string[]): boolean {
  if (field === undefined) return false;
  return changed.some((path) => path === field || path.startsWith(`${field}.`) || field.startsWith(`${path}.`));
}

/** Provenance the validator can use for locations and wording: everything the admin has not edited. */
function importedProvenance(provenance: Record<string, StagedProvenance>): Record<string, Provenance> {
  const out: Record<string, Provenance> = {};
  for (const [path, origin] of Object.entries(provenance)) if (origin.kind !== 'edited') out[path] = origin;
  return out;
}

/** Where problems about absent fields point: the order's first row, or its message. */
export function fallbackOf(order: Pick<StagedOrder, 'source'>): Location {
  if (order.source.rows?.[0] !== undefined) return { row: order.source.rows[0] };
  if (order.source.message !== undefined) return { message: order.source.message };
  return {};
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

export function identityOf(body: unknown): { clinicCode: string | null; clinicOrderId: string | null } {
  const root = (body ?? {}) as {
    clinicInformation?: { clinicCode?: unknown };
    prescription?: { clinicOrderId?: unknown };
  };
  return {
    clinicCode: text(root.clinicInformation?.clinicCode),
    clinicOrderId: text(root.prescription?.clinicOrderId),
  };
}

function duplicateProblems(
  order: Pick<StagedOrder, 'position' | 'source'>,
  clinicCode: string | null,
  clinicOrderId: string | null,
  ctx: AssessContext,
): Problem[] {
  if (!clinicCode || !clinicOrderId) return [];
  const where = { file: order.source.file, ...fallbackOf(order), field: 'prescription.clinicOrderId' };
  if (ctx.isKnownOrder(clinicCode, clinicOrderId)) {
    return [
      {
        severity: 'error',
        ...where,
        code: 'order.alreadyKnown',
        text: `Order '${clinicOrderId}' of clinic '${clinicCode}' was already queued or sent from an earlier batch; the service would reject it as a duplicate.`,
      },
    ];
  }
  const earlier = ctx.earlierInBatch(clinicCode, clinicOrderId, order.position);
  if (earlier !== undefined) {
    return [
      {
        severity: 'error',
        ...where,
        code: 'order.duplicateInFile',
        text: `Order '${clinicOrderId}' of clinic '${clinicCode}' is also order ${earlier} of this batch; the service would reject the second as a duplicate.`,
      },
    ];
  }
  return [];
}

/**
 * The staged order after an edit: new body and provenance, problems re-derived, validity for the batch's route.
 * `cleared` lists the problems only the import could see that the edit took away (an undo gives them back).
 * `edited` (default true) says whether the order counts as edited afterwards: an undo that brought every field
 * back to what the import read passes false, so the order can be forwarded as its HL7 message again.
 */
export function reassessAfterEdit(
  before: StagedOrder,
  outcome: EditOutcome,
  wholeBody: boolean,
  ctx: AssessContext,
  edited = true,
): StagedOrderUpdate & { cleared: Problem[] } {
  const file = before.source.file;
  const fromValidator = new Set(
    validateOrder(before.body, { codeLists: ctx.codeLists, today: ctx.today, file }).map(key),
  );
  const importOnly = before.problems.filter(
    (problem) => !ROUTE_PROBLEM.test(problem.code) && !RECHECKED.has(problem.code) && !fromValidator.has(key(problem)),
  );
  const clearedByEdit = (problem: Problem) =>
    !STICKY_IMPORT_PROBLEMS.has(problem.code) &&
    (touches(problem.field, outcome.changed) || (wholeBody && problem.field === undefined));
  const kept = importOnly.filter((problem) => !clearedByEdit(problem));
  const cleared = importOnly.filter(clearedByEdit);
  const carried = [...kept, ...outcome.problems];
  const skip = new Set(carried.flatMap((problem) => (problem.field ? [problem.field] : [])));
  const validated = validateOrder(outcome.body, {
    codeLists: ctx.codeLists,
    today: ctx.today,
    file,
    provenance: importedProvenance(outcome.provenance),
    fallback: fallbackOf(before),
    skip,
  });
  const identity = identityOf(outcome.body);
  const own = [
    ...carried,
    ...validated,
    ...duplicateProblems(before, identity.clinicCode, identity.clinicOrderId, ctx),
  ];
  const routed = problemsForRoute(
    { ...before, body: outcome.body, provenance: outcome.provenance, edited },
    own,
    ctx.route,
    ctx.codeLists,
  );
  return {
    ...identity,
    body: outcome.body,
    provenance: outcome.provenance,
    source: before.source,
    problems: routed.problems,
    valid: routed.valid,
    edited,
    ...(edited ? {} : { unedited: true }),
    cleared,
  };
}
