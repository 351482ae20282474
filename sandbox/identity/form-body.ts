import type { Readable } from 'node:stream';

/** Same cap as oidc-provider's own body parser: sign-in forms and token requests are tiny. */
export const FORM_BODY_LIMIT = 56 * 1024;

export class BodyTooLargeError extends Error {
  constructor() {
    super('request body too large');
    this.name = 'BodyTooLargeError';
  }
}

/** Reads a whole request body, refusing more than `limit` bytes. */
export async function readBody(stream: Readable, limit = FORM_BODY_LIMIT): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > limit) throw new BodyTooLargeError();
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}

export async function readForm(stream: Readable): Promise<URLSearchParams> {
  return new URLSearchParams((await readBody(stream)).toString('utf8'));
}
