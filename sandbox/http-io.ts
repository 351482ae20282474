import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FieldError } from '../shared/errors.js';
import { toWireJson } from '../shared/wire-json.js';

/** Reading requests and writing replies the way the Order Service does: JSON bodies, one error envelope. */

export const MAX_BODY_BYTES = 1_000_000;

/** A reply a handler wants sent; `body` is serialised with toWireJson so dmdCodes go out as number tokens. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type ErrorDetails = FieldError | { message: string } | FieldError[];

/** Thrown by handlers and rules; the server turns it into the `{ error, status, details }` envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly details: ErrorDetails | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(error);
    this.name = 'HttpError';
  }

  toReply(): Reply {
    return {
      status: this.status,
      body: { error: this.error, status: this.status, details: this.details },
      headers: this.headers,
    };
  }
}

export const badRequest = (error: string, details: ErrorDetails | null = null) => new HttpError(400, error, details);
export const notFound = (message: string) => new HttpError(404, 'Not Found', { message });

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, 'Payload Too Large', { message: `bodies are limited to ${MAX_BODY_BYTES} bytes` }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendReply(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return;
  const text = toWireJson(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}
