import type { z } from 'zod';
import { passesCreateWithClinicV1 } from '../../../shared/create-with-clinic-check.js';
import type { FieldError } from '../../../shared/errors.js';
import { createV2Schema, createWithClinicV1Schema } from '../../../shared/orders.js';
import { parseWireJson } from '../../../shared/wire-json.js';

/**
 * The check a stored JSON create body must pass before it is sent: read losslessly (dm+d codes beyond the safe
 * integers stay digit strings), then the route's shared schema. The client runs it at send time; the store runs
 * it when an order is accepted and records that it passed (`orders.body_checked`, migration 11), so a send of
 * a body the store vouches for skips the parse (about 20–30 µs an order, most of the client's own cost).
 *
 * Accept also vouches, without this re-read, for a v1 body it has just written with `toWireJson` from an object
 * that passed `createWithClinicV1Schema`: for v1 this check must stay exactly that schema.
 *
 * STORED_BODY_CHECK_VERSION names this check as the stored vouches mean it. Change it whenever the check or
 * the schemas it uses change in a way that could refuse a body the old ones passed: vouches recorded under
 * another number are then ignored and those bodies are checked again at send time.
 */
export const STORED_BODY_CHECK_VERSION = 1;

export type StoredBodyRoute = 'v1' | 'v2';

export type StoredBodyCheck = { ok: true } | { ok: false; fields: FieldError[] };

export function fieldsOf(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(input)',
    message: issue.message,
  }));
}

const PASSED: StoredBodyCheck = { ok: true };

export function checkStoredBody(route: StoredBodyRoute, rawBody: string): StoredBodyCheck {
  let parsed: unknown;
  try {
    parsed = parseWireJson(rawBody);
  } catch {
    return { ok: false, fields: [{ field: '(body)', message: 'the stored body is not JSON' }] };
  }
  // The hand-written check vouches for most v1 bodies without zod's cost; zod decides (and explains) the rest.
  if (route === 'v1' && passesCreateWithClinicV1(parsed)) return PASSED;
  const checked = (route === 'v1' ? createWithClinicV1Schema : createV2Schema).safeParse(parsed);
  return checked.success ? PASSED : { ok: false, fields: fieldsOf(checked.error) };
}

/** The vouch to store for a body just written: the check's version when it passes, else null (checked at send). */
export function storedBodyVouch(route: string, rawBody: string): number | null {
  if (route !== 'v1' && route !== 'v2') return null;
  return checkStoredBody(route, rawBody).ok ? STORED_BODY_CHECK_VERSION : null;
}
