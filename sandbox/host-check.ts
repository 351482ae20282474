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

/** Answers 421 (Misdirected Request) and returns true for a request addressed to another host. */
export function refuseForeignHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (isOwnHost(req)) return false;
  const text = 'Misdirected request: this server answers only for its own loopback address and port.\n';
  res.writeHead(421, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  res.end(text);
  return true;
}
