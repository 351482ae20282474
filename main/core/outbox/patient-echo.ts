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
/** A name is looked for from two letters: Li, Ng, Wu, Jo are names, and are found only as whole words. */
const MIN_NAME_LENGTH = 2;
const NAME_KEY = /name$/i;
const HL7_PATIENT_SEGMENT = /(?:^|\r)PID\|([^\r]*)/;
/** A date as a body holds it (v1 `1980-01-15`, v2 `1980-01-15T00:00:00Z`) or as HL7 does (`19800115`). */
const ISO_DAY = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:T|$)/;
const HL7_DAY = /^(\d{4})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?:\d{2}){0,3}(?:\.\d+)?(?:[+-]\d{4})?$/;

/** The patient's values in a stored request body: a JSON body's patient objects, or an HL7 message's PID. */
export function patientValues(requestBody: string): string[] {
  const values = new Set<string>();
  const pid = HL7_PATIENT_SEGMENT.exec(requestBody);
  if (pid) {
    pid[1]!.split('|').forEach((field, index) => {
      // PID-5 (index 4 after the segment name) is the name.
      for (const piece of field.split(/[\^~&]/)) add(piece, index === 4, values);
    });
  } else {
    let body: unknown;
    try {
      body = JSON.parse(requestBody);
    } catch {
      return [];
    }
    collect(body, false, false, values);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

function collect(value: unknown, inPatient: boolean, isName: boolean, out: Set<string>): void {
  if (typeof value === 'string' || typeof value === 'number') {
    if (inPatient) add(String(value), isName, out);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    collect(inner, inPatient || PATIENT_OBJECTS.test(key), NAME_KEY.test(key), out);
  }
}

/** A value, and a date also in the other ways a service writes it: the day alone, ISO, and HL7's digits. */
function add(raw: string, isName: boolean, out: Set<string>): void {
  const value = raw.trim();
  if (value.length >= (isName ? MIN_NAME_LENGTH : MIN_LENGTH)) out.add(value);
  const day = ISO_DAY.exec(value) ?? HL7_DAY.exec(value);
  if (day) {
    out.add(`${day[1]}-${day[2]}-${day[3]}`);
    out.add(`${day[1]}${day[2]}${day[3]}`);
  }
}

/** The time a service may write after a day (`1980-01-15T00:00:00`, `…T00:00:00.000+01:00`): part of the value. */
const TIME_AFTER_DAY = '(?:T[\\d:.]+(?:Z|[+-]\\d\\d:?\\d\\d)?)?';

/** `text` with each of `values` standing on its own (not inside a longer word or number) replaced, in any case. */
export function withoutValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of values) {
    // Syntax characters only: with the u flag an escaped "-" is an error.
    const literal = value.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    const time = /^\d{4}-\d{2}-\d{2}$/.test(value) ? TIME_AFTER_DAY : '';
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${literal}${time}(?![\\p{L}\\p{N}])`, 'giu'), '[patient]');
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
