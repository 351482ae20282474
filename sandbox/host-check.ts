import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * DNS rebinding: a page on evil.example can re-point its own name at 127.0.0.1 and then read what a loopback
 * server answers, as same-origin. The request still says `Host: evil.example:PORT`. So the sandbox's API and its
 * identity server answer only requests addressed to themselves, a loopback name with the port the connection came
 * in on, and refuse anything else before any route (or oidc-provider, which builds URLs from the issuer) sees it.
 */

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** True when the Host header is exactly a loopback name and this server's own port. */
export function isOwnHost(req: IncomingMessage): boolean {
  const host = req.headers.host?.toLowerCase();
  const port = req.socket.localPort;
  if (host === undefined || port === undefined) return false;
  return LOOPBACK_NAMES.some((name) => host === `${name}:${port}`);
}

function refuse(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  res.end(text);
}

/**
 * The request's target as a URL, or undefined for one that is not a path at all. Node's parser passes targets
 * such as `//`, `///` or `http://[` that `new URL` throws on; thrown in a request handler, that ended the process
 * (the app's core, for its embedded sandbox), and any page can send one (`fetch('http://127.0.0.1:PORT//')`).
 */
export function requestTarget(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://sandbox.invalid');
  } catch {
    return undefined;
  }
}

/**
 * The first gate of both servers: a request for another Host gets 421, one whose target is not a URL path 400,
 * each with a one-line text body; otherwise returns the target, for the routes to read.
 */
export function admitRequest(req: IncomingMessage, res: ServerResponse): URL | undefined {
  if (!isOwnHost(req)) {
    refuse(res, 421, 'Misdirected request: this server answers only for its own loopback address and port.\n');
    return undefined;
  }
  const target = requestTarget(req);
  if (target === undefined) refuse(res, 400, 'Bad request: the request target is not a path.\n');
  return target;
}
