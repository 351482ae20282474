import type { CodeLists } from '../../../shared/environment.js';
import { createWithClinicV1Schema, type CreateWithClinicV1 } from '../../../shared/orders.js';
import { toWireJson } from '../../../shared/wire-json.js';
import { messageTypeOf, notForwardable } from '../importing/hl7-message-types.js';
import { toCreateV2 } from '../importing/to-create-v2.js';
import type { Problem } from '../model/imported-order.js';
import type { OrderItem } from '../store/orders-repo.js';
import type { OrderRoute } from '../store/order-state.js';
import type { StagedOrder, StagedProvenance } from '../store/staged-orders-repo.js';
import { hl7CarriedSchema, restoreWaived, waiveForHl7, withoutProfileHint, withProfileHint } from './hl7-route.js';

/**
 * The request a staged order becomes on each route, and what stops it going that way. One function serves the
 * preview (`batches.get`, `batch show`) and accept, so what the admin reviewed is exactly what is queued.
 *
 * - `v1`: the create-with-clinic body as the shared schema reads it (text trimmed), dm+d codes as number tokens.
 * - `v2`: the same order through `toCreateV2` with the environment's code lists (title, payment type and courier
 *   as integers, repeats on the items).
 * - `hl7`: the original HL7 message, byte for byte. An edited order no longer matches its message, a CSV or
 *   JSON order has none, and an RDE^O01 (HL7 v2.3) is not a type the service's endpoint reads, so none of them can
 *   take this route. Fields the message cannot carry are not required for it
 *   (hl7-route.ts).
 */

/** Problems that depend on the batch's route; recomputed when the route or the body changes. */
export const ROUTE_PROBLEM = /^(route|v2)\./;

export type RouteSubject = Pick<StagedOrder, 'body' | 'orderControl' | 'source'> & {
  /** Where the values came from (locates route problems); accept passes `edited` instead. */
  provenance?: Record<string, StagedProvenance>;
  edited?: boolean;
};

export type WireRequest =
  | {
      ok: true;
      text: string;
      items: OrderItem[];
      clinicCode: string;
      clinicOrderId: string;
      /**
       * The text is `toWireJson` of an object that has just passed the route's own schema (v1): the store can
       * vouch for it without reading it again. False when the route's schema was not what was checked (v2, HL7).
       */
      schemaChecked: boolean;
      /** The object `text` was written from (v1, v2): the store reads the patient's surname from it. */
      writtenFrom?: unknown;
    }
  | { ok: false; problems: Problem[] };

function located(problem: Problem, subject: RouteSubject): Problem {
  const origin = problem.field ? subject.provenance?.[problem.field] : undefined;
  const where =
    origin?.kind === 'csv'
      ? { row: origin.row }
      : origin?.kind === 'hl7'
        ? { message: origin.message }
        : subject.source.rows?.[0] !== undefined
          ? { row: subject.source.rows[0] }
          : subject.source.message !== undefined
            ? { message: subject.source.message }
            : {};
  return { ...problem, file: subject.source.file, ...where };
}

function routeProblem(subject: RouteSubject, code: string, text: string): Problem {
  return located({ severity: 'error', file: subject.source.file, code, text }, subject);
}

const wasEdited = (subject: RouteSubject): boolean =>
  subject.edited === true ||
  Object.values(subject.provenance ?? {}).some((origin: StagedProvenance) => origin.kind === 'edited');

/**
 * The exact request text for an order on a route, with its items for the outbox's search rows; or the problems
 * that keep it off that route. Only meaningful for an order whose v1 body is valid.
 */
export function wireRequest(subject: RouteSubject, route: OrderRoute, codeLists: CodeLists): WireRequest {
  if (route === 'hl7') {
    const hl7 = hl7RouteProblem(subject);
    if (hl7) return { ok: false, problems: [hl7] };
    const carried = hl7CarriedSchema.safeParse(subject.body);
    if (!carried.success) return invalidBody(subject);
    return { ok: true, text: subject.source.hl7!, schemaChecked: false, ...outboxParts(carried.data) };
  }
  const parsed = createWithClinicV1Schema.safeParse(subject.body);
  if (!parsed.success) return invalidBody(subject);
  const v1 = parsed.data;
  if (route === 'v1') {
    return { ok: true, text: toWireJson(v1), schemaChecked: true, writtenFrom: v1, ...outboxParts(v1) };
  }
  const v2 = toCreateV2(v1, codeLists, subject.source.file);
  if (!v2.ok) return { ok: false, problems: v2.problems.map((p) => located(p, subject)) };
  return { ok: true, text: toWireJson(v2.body), schemaChecked: false, writtenFrom: v2.body, ...outboxParts(v1) };
}

const invalidBody = (subject: RouteSubject): WireRequest => ({
  ok: false,
  problems: [routeProblem(subject, 'route.invalidBody', 'The order is not a valid create-with-clinic order.')],
});

/** The identity and items the outbox keeps beside the request text (for its search rows). */
function outboxParts(order: {
  prescribedItems: CreateWithClinicV1['prescribedItems'];
  clinicInformation: { clinicCode: string };
  prescription: { clinicOrderId: string };
}) {
  const items: OrderItem[] = order.prescribedItems.map((item) => ({
    dmdCode: item.dmdCode,
    productId: item.productId ?? null,
    medication: item.medication,
    quantity: item.quantity,
  }));
  return {
    items,
    clinicCode: order.clinicInformation.clinicCode,
    clinicOrderId: order.prescription.clinicOrderId,
  };
}

function hl7RouteProblem(subject: RouteSubject): Problem | undefined {
  if (!subject.source.hl7) {
    return routeProblem(
      subject,
      'route.hl7NoMessage',
      'This order did not come from an HL7 message, so it cannot be forwarded as one; send it by create-with-clinic or v2.',
    );
  }
  if (wasEdited(subject)) {
    return routeProblem(
      subject,
      'route.hl7Edited',
      'This order was edited, so its original HL7 message no longer says what the order says; send it by create-with-clinic or v2.',
    );
  }
  // An RDE^O01 (HL7 v2.3) is read like an RDE^O11, but the service's endpoint does not take it.
  const notSent = notForwardable(messageTypeOf(subject.source.hl7));
  if (notSent) return routeProblem(subject, 'route.hl7MessageType', notSent);
  return undefined;
}

/**
 * The problems an order has on `route` beyond its own validation. Cheap where it can be: v1 adds nothing to an
 * order the validator passed, HL7 checks only for the message; v2 maps the codes.
 */
export function routeProblems(subject: RouteSubject, route: OrderRoute, codeLists: CodeLists): Problem[] {
  if (subject.orderControl === 'CA' || route === 'v1') return [];
  if (route === 'hl7') {
    const problem = hl7RouteProblem(subject);
    return problem ? [problem] : [];
  }
  const request = wireRequest(subject, route, codeLists);
  return request.ok ? [] : request.problems;
}

/**
 * An order's problems for `route`: its own (route problems of another route dropped) plus this route's, which are
 * only looked for when the order is otherwise valid (the v2 mapping needs a valid v1 body).
 */
export function problemsForRoute(
  subject: RouteSubject,
  problems: readonly Problem[],
  route: OrderRoute,
  codeLists: CodeLists,
): { problems: Problem[]; valid: boolean } {
  // Most imported orders: nothing to restore or waive, and v1 (or a cancel) adds nothing.
  if (problems.length === 0 && (route === 'v1' || subject.orderControl === 'CA')) return { problems: [], valid: true };
  let own = withoutProfileHint(restoreWaived(problems.filter((problem) => !ROUTE_PROBLEM.test(problem.code))));
  // On the HL7 route, what the message cannot carry is the service's to default: not an error here.
  if (route === 'hl7' && subject.orderControl !== 'CA' && !hl7RouteProblem(subject)) own = waiveForHl7(own);
  // By v1 or v2, an HL7 order's payment type, courier and currency come from the mapping profile: say so.
  else if (subject.source.hl7 !== undefined && subject.orderControl !== 'CA') own = withProfileHint(own);
  const blocked = own.some((problem) => problem.severity === 'error');
  const all = blocked ? own : [...own, ...routeProblems(subject, route, codeLists)];
  return { problems: all, valid: !all.some((problem) => problem.severity === 'error') };
}
