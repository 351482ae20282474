import { calls, type CallHandlers, type CallName } from '../../shared/contract.js';

/**
 * A full CallHandlers for transport tests that exercise a few calls: the given handlers, and every other call
 * failing loudly if a test reaches it by mistake.
 */
export function handlersWith(given: Partial<CallHandlers>): CallHandlers {
  const all: Partial<Record<CallName, unknown>> = {};
  for (const name of Object.keys(calls) as CallName[]) {
    all[name] = given[name] ?? (() => Promise.reject(new Error(`${name} is not used by this test`)));
  }
  return all as CallHandlers;
}
