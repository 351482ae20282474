import type { ServiceError } from '../../../shared/errors.js';
import { writtenByTheService } from './error-mapping.js';

/**
 * Words of a service saying it has no such order: "order … not found", "clinicOrderId … does not exist", "unknown
 * order", "no such order".
 */
const NO_SUCH_ORDER =
  /(\border\b|clinic\s*order\s*id|\borderid)(?:(?!clinic(?!\s*order))[^.;])*\b(not found|does not exist|doesn't exist)\b|\b(no such|unknown|no) order\b/i;

/**
 * A refused lookup that is the service saying it has no such order, for every reader of a lookup (the outbox's
 * reconcile, the status poller, the detail view's refresh):
 * - a 404 the service wrote (its envelope, a field, or words about the order; the contract's 404 is "not found in
 *   the clinic's scope"), not a proxy's page or a bare "Not Found" from something in front of it: those say nothing
 *   about the order. Taken as a miss, each had an in-doubt order sent again at once (a second time at a service that
 *   does not refuse a clinic order id twice), and counted a created order towards "not found at the service";
 * - a 400 worded as not found or unknown order (the contract's status pages answer an unknown order id with 400:
 *   "accept both"); any other 400 (a bad clinic code, say) says nothing about the order.
 * - a lookup of one order answered with nothing (the client's `noSuchOrder`: ASP.NET Core's 204 for an action that
 *   returned null, a 200 with an empty body or `null`).
 * Nothing else is: not a 403, a 5xx or a failure to reach the service.
 */
export function saysNoSuchOrder(error: ServiceError): boolean {
  if (error.kind !== 'rejected') return false;
  if (error.noSuchOrder) return true;
  // Each text on its own: joined, an envelope's "Order status request invalid" and a field's "Clinic not found" read
  // as "order … not found", and a lookup refused for its clinic code had the order sent again.
  const said = [error.message, ...error.fields.map((field) => field.message)].some((text) => NO_SUCH_ORDER.test(text));
  if (error.status === 404) return writtenByTheService(error) || said;
  if (error.status !== 400) return false;
  return said;
}
