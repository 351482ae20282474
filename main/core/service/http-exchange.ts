import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex, Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, gunzip } from 'node:zlib';
import type { WarmConnections } from './warm-connections.js';
import { answerText } from './answer-text.js';

/**
 * One HTTP request/response over a fresh connection, reporting *whether the request could have reached the
 * service* when it fails.
 *
 * Why node:http and not fetch (undici): the client must tell "refused before anything was sent" (safe to send
 * again) from "dropped after the request went out" (a create may have happened). node:http exposes the socket,
 * so the `connect` / `secureConnect` event marks the exact moment bytes can leave; fetch only gives a wrapped
 * error, and its pooled keep-alive sockets add a third case (a stale pooled socket reset on reuse) that looks
 * like a reset after sending. Hence also `agent: false`: one connection per request, never a reused socket. A
 * connection opened ahead for the request (warm-connections.ts) is one too: it carries this request only.
 */

export interface ExchangeRequest {
  method: 'GET' | 'PUT' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /**
   * Aborting it destroys the request at once and the exchange ends `cancelled`. Optional, and looked at only when
   * given: a caller without one (the outbox, thousands of sends) pays for no listener.
   */
  signal?: AbortSignal;
  /** Connections opened ahead: the request goes over one of them when it is ready, without waiting to connect. */
  warm?: WarmConnections;
}

export type ExchangeResult =
  | {
      kind: 'response';
      status: number;
      headers: IncomingHttpHeaders;
      text: string;
      /** Longer than MAX_RESPONSE_BYTES (decoded): cut off, `text` empty. */
      truncated: boolean;
      /** Why the body could not be decoded (an unknown or corrupt content coding); `text` is then empty. */
      unreadable?: string;
    }
  | {
      kind: 'failure';
      /** The connection was open, so the request may have been received (and acted on). */
      sent: boolean;
      timedOut: boolean;
      /** Node's error code (ECONNREFUSED, ECONNRESET, ENOTFOUND…) when there is one. */
      code: string | undefined;
      message: string;
    }
  /** The caller's signal aborted; `sent` as for a failure (the service may have received the request). */
  | { kind: 'cancelled'; sent: boolean };

/** Far above any real answer (a product search is a few KB); a larger body is treated as unreadable. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

function bodyOf(chunks: Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** What the client decodes, and so says it accepts (without the header any coding would be acceptable). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * The body stream with its content codings undone (RFC 9110: listed in the order applied), or why it cannot be
 * read. Before, a compressed answer was read as text: not JSON, so a create was in doubt and a read failed.
 */
function decoding(res: IncomingMessage): { stream: Readable; problem?: string } {
  const header = res.headers['content-encoding'];
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  let stream: Readable = res;
  for (const coding of codings.reverse()) {
    const decoder =
      coding === 'gzip' || coding === 'x-gzip'
        ? createGunzip()
        : // RFC 9110's "deflate" is the zlib format (raw deflate, which a few old servers sent, ends corrupt).
          coding === 'deflate'
          ? createInflate()
          : coding === 'br'
            ? createBrotliDecompress()
            : undefined;
    if (!decoder)
      return {
        stream: res,
        problem: `the answer is encoded as "${coding.slice(0, 40)}", which the client does not read`,
      };
    stream = stream.pipe(decoder);
  }
  return { stream };
}

let connecting = 0;

/**
 * Exchanges of this thread whose connection is not open yet: their request is still to be written, by a later
 * turn of the event loop. The outbox holds a commit back for them (EnvironmentRunner#scheduleCommit).
 */
export function requestsConnecting(): number {
  return connecting;
}

export function exchange(request: ExchangeRequest): Promise<ExchangeResult> {
  const { signal } = request;
  // Already cancelled: nothing is sent, not even a connection attempt.
  if (signal?.aborted) return Promise.resolve({ kind: 'cancelled', sent: false });
  return new Promise((resolve) => {
    const secure = request.url.protocol === 'https:';
    let connected = false;
    let settled = false;
    let timedOut = false;
    // A plain timer rather than AbortSignal.timeout: the same deadline for the whole exchange, at a fraction of
    // the cost per request (the outbox sends thousands); unref'd like the signal's, and cleared on settling.
    const timer = setTimeout(() => {
      timedOut = true;
      fail(new Error('timed out'));
    }, request.timeoutMs);
    timer.unref();
    const settle = (result: ExchangeResult) => {
      if (settled) return;
      settled = true;
      if (!connected) connecting -= 1;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = () => {
      settle({ kind: 'cancelled', sent: connected });
      req.destroy();
    };
    const fail = (error: unknown) => {
      const code = timedOut ? 'ETIMEDOUT' : (error as NodeJS.ErrnoException | undefined)?.code;
      const message = timedOut
        ? `no answer within ${request.timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : 'the connection failed';
      settle({ kind: 'failure', sent: connected, timedOut, code, message });
      req.destroy();
    };

    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      let unreadable: string | undefined;
      const decoded = decoding(res);
      const answer = (body: Buffer | undefined) =>
        settle({
          kind: 'response',
          status: res.statusCode ?? 0,
          headers: res.headers,
          // A UTF-8 byte order mark is dropped, a UTF-16 body or another charset read as such (answer-text.ts).
          text: truncated || unreadable || !body ? '' : answerText(body, res.headers['content-type']),
          truncated,
          ...(unreadable ? { unreadable } : {}),
        });
      const finish = () => {
        const body = truncated || unreadable ? undefined : bodyOf(chunks);
        // gzip that no Content-Encoding names (a server compressing on its own): its magic bytes start no text, so it
        // is inflated, to the same limit. Read as text it was "not JSON", a create in doubt.
        if (body && decoded.stream === res && body[0] === 0x1f && body[1] === 0x8b && body[2] === 0x08) {
          gunzip(body, { maxOutputLength: MAX_RESPONSE_BYTES }, (error, inflated) => {
            if (error && 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE') truncated = true;
            else if (error)
              unreadable = 'the answer is gzip-compressed without saying so (no Content-Encoding), and corrupt';
            answer(inflated);
          });
          return;
        }
        answer(body);
      };
      const giveUp = () => {
        finish();
        req.destroy();
        if (decoded.stream !== res) decoded.stream.destroy();
      };
      if (decoded.problem !== undefined) {
        unreadable = decoded.problem;
        giveUp();
        return;
      }
      // The limit counts decoded bytes: a small gzip that inflates to gigabytes stops here too.
      decoded.stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          truncated = true;
          giveUp();
          return;
        }
        chunks.push(chunk);
      });
      decoded.stream.on('end', finish);
      if (decoded.stream !== res) {
        decoded.stream.on('error', () => {
          unreadable = `the answer's ${String(res.headers['content-encoding'])} encoding is corrupt`;
          giveUp();
        });
      }
      res.on('error', fail);
      // A connection lost mid-body ends without 'end': that is a failure after sending, not an answer.
      res.on('close', () => {
        if (!res.complete)
          fail(
            Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' }),
          );
      });
    };

    const send = secure ? httpsRequest : httpRequest;
    const warm = request.warm?.take(request.url);
    // Open already: from here on the request may reach the service.
    if (warm) connected = true;
    let req: ClientRequest;
    try {
      req = send(
        request.url,
        {
          method: request.method,
          headers: {
            ...request.headers,
            ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}),
          },
          // Without an agent, Node writes over the connection given (an agent would open its own).
          ...(warm ? { createConnection: () => warm } : { agent: false }),
        },
        onResponse,
      );
    } catch (error) {
      // Refused before any request existed (a header Node will not write, say): no deadline to keep, no connection
      // to use, and nothing sent. An answer, never a throw: thrown, it reached the outbox as a bug, and each create
      // was set aside in doubt and looked up for good (docs/security.md, finding 59).
      settled = true;
      clearTimeout(timer);
      warm?.destroy();
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      const message = error instanceof Error ? error.message : 'the request could not be made';
      resolve({ kind: 'failure', sent: false, timedOut: false, code, message });
      return;
    }
    req.on('socket', (socket) => {
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        if (!connected && !settled) connecting -= 1;
        connected = true;
      });
    });
    // Counted down once: when the connection opens, or when the exchange ends before it did.
    if (!connected) connecting += 1;
    req.on('error', fail);
    // A 101 we never asked for: Node hands the socket over and the exchange would wait for its deadline.
    req.on('upgrade', (res: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      settle({
        kind: 'response',
        status: res.statusCode ?? 101,
        headers: res.headers,
        text: '',
        truncated: false,
        unreadable: 'the service asked to switch protocols instead of answering',
      });
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(request.body);
  });
}
