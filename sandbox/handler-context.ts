import { parseWireJson } from '../shared/wire-json.js';
import { badRequest, type Reply } from './http-io.js';
import type { LockedOutPatient } from './order-rules.js';
import type { OrderStore } from './order-store.js';

/** What every API handler gets: the parsed URL, the raw body text, and the sandbox's state. */
export interface HandlerContext {
  url: URL;
  rawBody: string;
  store: OrderStore;
  lockedOut: readonly LockedOutPatient[];
}

export type Handler = (ctx: HandlerContext) => Reply;

/** Parses a JSON body losslessly (18-digit dmdCodes stay digit strings), or throws a 400 naming the body. */
export function jsonBody(ctx: HandlerContext): unknown {
  if (!ctx.rawBody.trim())
    throw badRequest('A non-empty request body is required.', [{ field: '(body)', message: 'the body is empty' }]);
  try {
    return parseWireJson(ctx.rawBody);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unreadable';
    throw badRequest('The request body is not valid JSON.', [{ field: '(body)', message: reason.slice(0, 200) }]);
  }
}

/** A query parameter, trimmed; null when absent or blank. */
export function queryParam(ctx: HandlerContext, name: string): string | null {
  // Parameter names are matched case-insensitively, as ASP.NET model binding does.
  for (const [key, value] of ctx.url.searchParams) {
    if (key.toLowerCase() === name.toLowerCase()) return value.trim() === '' ? null : value.trim();
  }
  return null;
}
