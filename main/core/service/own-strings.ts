import type { ServiceError } from '../../../shared/errors.js';

/**
 * A copy of `text` that holds nothing else. V8 keeps a string cut from a longer one (`slice`, a JSON parser's values)
 * as a view of it: a 500-character message cut from a 10 MB error body kept the whole body alive for as long as the
 * error was kept (with the order, for every order of a batch). structuredClone allocates the characters anew.
 */
export function ownCopy(text: string): string {
  return structuredClone(text);
}

/** The error with its words (message, fields) copied out of the answer they were read from. */
export function detachedError<E extends ServiceError>(error: E): E {
  const copy = { ...error, message: ownCopy(error.message) };
  if (copy.kind === 'rejected') {
    copy.fields = copy.fields.map((field) => ({ field: ownCopy(field.field), message: ownCopy(field.message) }));
  }
  return copy;
}
