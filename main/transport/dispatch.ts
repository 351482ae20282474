import type { z } from 'zod';
import {
  calls,
  isCallName,
  MAX_MESSAGE_BYTES,
  type CallHandlers,
  type CallName,
  type CallOutput,
} from '../../shared/contract.js';
import { ContractError, type ContractErrorInfo } from '../../shared/errors.js';

/**
 * The single entry every transport goes through: it treats the call name and payload as untrusted, parses the
 * payload with the contract's schema, runs the handler, and checks the handler's answer against the contract
 * too, so a core bug cannot leak an unexpected shape (or a secret) to the renderer.
 */

export type DispatchResult = { ok: true; value: unknown } | { ok: false; error: ContractErrorInfo };

function issuesOf(error: z.ZodError): NonNullable<ContractErrorInfo['issues']> {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(input)',
    message: issue.message,
  }));
}

/** The answer to a name that is not a call (also given by the core host's client before anything is sent). */
export function unknownCall(name: unknown): DispatchResult {
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 60)) : typeof name;
  return { ok: false, error: { code: 'unknown-call', message: `there is no call named ${shown}` } };
}

/**
 * Where `value` holds a key named `__proto__` (JSON.parse keeps it as an own key), or undefined. No call takes one,
 * and code that copies such an object by assignment replaces a prototype instead: a whole-body edit carrying one
 * reached Object.prototype of the core through an undo (docs/security.md, finding 16).
 */
export function protoKeyPath(value: unknown): string | undefined {
  const stack: Array<[unknown, string[]]> = [[value, []]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, path] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (Object.hasOwn(node, '__proto__')) return [...path, '__proto__'].join('.');
    for (const [key, child] of Object.entries(node)) stack.push([child, [...path, key]]);
  }
  return undefined;
}

export async function dispatchCall(handlers: CallHandlers, name: unknown, payload: unknown): Promise<DispatchResult> {
  if (!isCallName(name)) return unknownCall(name);
  const spec = calls[name];
  const protoKey = protoKeyPath(payload);
  if (protoKey !== undefined) {
    const message = 'a key named __proto__ is not accepted anywhere in a call';
    return {
      ok: false,
      error: { code: 'invalid-input', message: `invalid input for ${name}`, issues: [{ path: protoKey, message }] },
    };
  }
  const input = spec.input.safeParse(payload ?? {});
  if (!input.success) {
    return {
      ok: false,
      error: { code: 'invalid-input', message: `invalid input for ${name}`, issues: issuesOf(input.error) },
    };
  }
  try {
    const handler = handlers[name] as (input: unknown) => Promise<CallOutput<CallName>>;
    const output = spec.output.safeParse(await handler(input.data));
    if (!output.success) {
      return { ok: false, error: { code: 'internal', message: `${name} produced an answer outside the contract` } };
    }
    return { ok: true, value: output.data };
  } catch (error) {
    if (error instanceof ContractError) return { ok: false, error: error.toInfo() };
    // Internal errors may carry request details: only the call name crosses the boundary.
    return { ok: false, error: { code: 'internal', message: `${name} failed inside the app` } };
  }
}

/** Size check for transports that receive raw text (the bridge); IPC has its own structured-clone limit. */
export function isWithinMessageLimit(byteLength: number): boolean {
  return byteLength <= MAX_MESSAGE_BYTES;
}

/**
 * How deep a call's input may nest: far beyond any call's schema, far below what overflows the stack. A message
 * inside the size limit can still nest 500,000 levels deep; JSON.parse reads that, but JSON.stringify (the core
 * host's channel) throws on it, which crashed the bridge host (docs/security.md, finding 11).
 */
export const MAX_INPUT_DEPTH = 64;

/** Whether `value` nests arrays or objects more than `MAX_INPUT_DEPTH` levels deep (walked without recursion). */
export function nestsTooDeep(value: unknown): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= MAX_INPUT_DEPTH) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The answer to a call whose input `nestsTooDeep`. */
export function tooDeep(name: unknown): DispatchResult {
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 60)) : 'the call';
  return {
    ok: false,
    error: {
      code: 'invalid-input',
      message: `the input of ${shown} is nested more than ${MAX_INPUT_DEPTH} levels deep`,
    },
  };
}
