import type { ServiceError } from '../../../shared/errors.js';
import type { CancellableOutcome } from '../service/client.js';

/**
 * A service's error may quote the order it refused ("Invalid surname 'Example' for DOB 1980-01-15"), and the message
 * of a failed create, cancel or lookup is stored with the order, audited, exported with the log and printed by
 * `submit`: the patient's own values it quotes are replaced by "[patient]" first. Only values of this order are known, and only those are
 * found; the rest of the message (what was wrong, with which field) is kept.
 */

/** Keys of the body's objects that hold the patient (create-with-clinic v1 and v2). */
const PATIENT_OBJECTS = /^(?:customer|patient|homeAddress|deliveryAddress)$/i;
/** Shorter values (a title, a county code) would match ordinary words of the message. */
const MIN_LENGTH = 3;
const HL7_PATIENT_SEGMENT = /(?:^|\r)PID\|([^\r]*)/;

/** The patient's values in a stored request body: a JSON body's patient objects, or an HL7 message's PID. */
export function patientValues(requestBody: string): string[] {
  const values = new Set<string>();
  const pid = HL7_PATIENT_SEGMENT.exec(requestBody);
  if (pid) {
    for (const piece of pid[1]!.split(/[|^~&]/)) values.add(piece.trim());
  } else {
    let body: unknown;
    try {
      body = JSON.parse(requestBody);
    } catch {
      return [];
    }
    collect(body, false, values);
  }
  return [...values].filter((value) => value.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
}

function collect(value: unknown, inPatient: boolean, out: Set<string>): void {
  if (typeof value === 'string' || typeof value === 'number') {
    if (inPatient) out.add(String(value).trim());
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) collect(inner, inPatient || PATIENT_OBJECTS.test(key), out);
}

/** `text` with each of `values` standing on its own (not inside a longer word or number) replaced, in any case. */
export function withoutValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of values) {
    // Syntax characters only: with the u flag an escaped "-" is an error.
    const literal = value.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${literal}(?![\\p{L}\\p{N}])`, 'giu'), '[patient]');
  }
  return out;
}

/** The error with the order's patient values taken out of its message and field messages. */
export function withoutPatientEcho(error: ServiceError, requestBody: string): ServiceError {
  if (error.message === '' && !('fields' in error && error.fields.length > 0)) return error;
  try {
    const values = patientValues(requestBody);
    if (values.length === 0) return error;
    const message = withoutValues(error.message, values);
    if (error.kind !== 'rejected') return message === error.message ? error : { ...error, message };
    const fields = error.fields.map((field) => ({ ...field, message: withoutValues(field.message, values) }));
    return { ...error, message, fields };
  } catch {
    // Never a reason to lose the answer: kept without its words.
    const message = 'the service gave a message that could not be checked for patient values, so it is not kept';
    return error.kind === 'rejected' ? { ...error, message, fields: [] } : { ...error, message };
  }
}

/** A call's outcome with its error (if a service error) taken through `withoutPatientEcho`; the same object if clean. */
export function outcomeWithoutPatientEcho<T, O extends CancellableOutcome<T>>(outcome: O, requestBody: string): O {
  if (outcome.ok || outcome.error.kind === 'cancelled') return outcome;
  const error = withoutPatientEcho(outcome.error, requestBody);
  return error === outcome.error ? outcome : { ...outcome, error };
}
