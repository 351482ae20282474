import { surnameSearchKey } from '../../../shared/patient-surname.js';
import { Hl7ParseError, parseHl7Message } from '../model/hl7-adapter.js';
import { chosenNameRepetition, messageDay } from '../model/hl7-patient-name.js';
import type { OrderRoute } from './order-state.js';

/**
 * The few fields the store reads out of a stored request body: the patient's surname (for search, migration 009)
 * and an HL7 message's control id (MSH-10, for an order's origin). The importer parsed the body once already, but
 * the store must also read bodies it was handed as text (orders enqueued directly, rows written before 009), so
 * it reads them again, with the importer's own HL7 parser.
 */

/**
 * The patient's surname as the body gives it: `customer.surname` (v1, v2) or PID-5.1 (HL7; of the repetition the
 * importer reads the name from, the legal name where PID-5 repeats); null if absent.
 */
export function patientSurnameOf(route: OrderRoute, requestBody: string): string | null {
  if (route === 'hl7') return hl7Value(requestBody, 'PID', 5, 1);
  let parsed: unknown;
  try {
    // Plain JSON.parse: a dm+d code beyond 2^53 rounds here, which does not matter for reading the surname.
    parsed = JSON.parse(requestBody);
  } catch {
    return null;
  }
  return surnameIn(parsed);
}

/** `customer.surname` of a v1 or v2 body (parsed, or the object its text was written from), trimmed; null if none. */
export function surnameIn(body: unknown): string | null {
  const surname = (body as { customer?: { surname?: unknown } } | null)?.customer?.surname;
  return typeof surname === 'string' && surname.trim() !== '' ? surname.trim() : null;
}

/** The search key of the body's patient surname (migration 009's `order_surnames`), or null when it names none. */
export function patientSurnameKeyOf(route: OrderRoute, requestBody: string): string | null {
  return surnameKeyOf(patientSurnameOf(route, requestBody));
}

/** The search key of a surname (null: none). */
export function surnameKeyOf(surname: string | null): string | null {
  // At most 400 UTF-16 units, so at most 400 characters for SQLite's CHECK whatever the letters.
  const key = surname === null ? '' : surnameSearchKey(surname).slice(0, 400);
  return key === '' ? null : key;
}

/** MSH-10, the message control id; null when absent. */
export function hl7ControlId(message: string): string | null {
  return hl7Value(message, 'MSH', 10, 1);
}

/**
 * The decoded, trimmed `component` of `field` in the first `segment` (its first repetition; PID-5's chosen one);
 * null if absent or unreadable.
 */
function hl7Value(message: string, segment: string, field: number, component: number): string | null {
  let parsed;
  try {
    parsed = parseHl7Message(message.replace(/^\v/, '').split(/\r\n|\r|\n/));
  } catch (error) {
    if (error instanceof Hl7ParseError) return null;
    throw error;
  }
  const found = parsed.first(segment);
  const repetition =
    found && segment === 'PID' && field === 5 ? chosenNameRepetition(found, messageDay(parsed.first('MSH'))) : 1;
  const value = found?.value(field, component, 1, repetition) ?? '';
  return value === '' ? null : value;
}
