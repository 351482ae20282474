import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of the sandbox that can answer some requests itself: for faults the sandbox's
 * switches cannot aim at one order (a poison order answered 503 every time, a lookup that misses once). Every
 * other request is forwarded unchanged, headers and body included.
 */
export interface ProxiedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  body: string;
}

/**
 * forward: pass it on and back. forward-then-drop: the sandbox acts on it, then the answer is lost (the client's
 * connection is destroyed), as after a crash between commit and reply. Or answer it here.
 */
export type ProxyDecision =
  | 'forward'
  | 'forward-then-drop'
  | { status: number; body: unknown; headers?: Record<string, string> }
  /** Answered here with this text as it is, not as JSON (a firewall's web page, an empty body). */
  | { status: number; text: string; headers?: Record<string, string> }
  /** The sandbox acts on it, then this answer replaces the sandbox's (a gateway's 303, a 409 after the write). */
  | { forwardThen: { status: number; body: unknown; headers?: Record<string, string> } }
  /** The sandbox answers, and its body is rewritten on the way back (another service's spelling of the same answer). */
  | { rewrite: (body: string) => string };

export interface RunningProxy {
  /** With trailing slash. */
  url: string;
  /** Requests answered by the rule instead of the sandbox. */
  intercepted(): number;
  /** Method and path of every request received, in order. */
  received(): Array<{ method: string; url: string }>;
  /** Requests received and not yet answered (forwarded ones wait for the sandbox), and the most at once. */
  inFlight(): number;
  maxInFlight(): number;
  /** Starts counting the most at once afresh from the requests in flight now. */
  resetMaxInFlight(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(
  targetUrl: string,
  rule: (req: ProxiedRequest) => ProxyDecision,
  /** Which requests inFlight() counts (default all). */
  countsInFlight: (req: { method: string; url: string }) => boolean = () => true,
): Promise<RunningProxy> {
  const target = new URL(targetUrl);
  let intercepted = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const received: Array<{ method: string; url: string }> = [];
  const server: Server = createServer((req, res) => {
    const seen = { method: req.method ?? 'GET', url: req.url ?? '/' };
    received.push(seen);
    if (countsInFlight(seen)) {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.once('close', () => (inFlight -= 1));
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const decision = rule({ method: req.method ?? 'GET', url: req.url ?? '/', body: body.toString('utf8') });
      if (
        decision !== 'forward' &&
        decision !== 'forward-then-drop' &&
        !('forwardThen' in decision) &&
        !('rewrite' in decision)
      ) {
        intercepted += 1;
        const text = 'text' in decision ? decision.text : JSON.stringify(decision.body);
        res.writeHead(decision.status, { 'content-type': 'application/json', ...decision.headers });
        res.end(text);
        return;
      }
      const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: false },
        (answer) => {
          if (decision === 'forward-then-drop') {
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          if (decision !== 'forward' && 'rewrite' in decision) {
            const parts: Buffer[] = [];
            answer.on('data', (part: Buffer) => parts.push(part));
            answer.on('end', () => {
              intercepted += 1;
              const text = decision.rewrite(Buffer.concat(parts).toString('utf8'));
              const { 'content-length': _length, ...rest } = answer.headers;
              res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': Buffer.byteLength(text) });
              res.end(text);
            });
            return;
          }
          if (decision !== 'forward') {
            const { status, body: replaced, headers: extra } = decision.forwardThen;
            answer.resume();
            answer.on('end', () => {
              intercepted += 1;
              res.writeHead(status, { 'content-type': 'application/json', ...extra });
              res.end(JSON.stringify(replaced));
            });
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    intercepted: () => intercepted,
    received: () => [...received],
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    resetMaxInFlight: () => (maxInFlight = inFlight),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
