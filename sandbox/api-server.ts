import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../main/core/platform/logger.js';
import { checkAdminRequest } from './admin-guard.js';
import { authorise, type AccessTokenVerifier } from './bearer-auth.js';
import type { FaultSwitches } from './faults.js';
import { handleAdmin } from './handlers/admin.js';
import { admitRequest } from './host-check.js';
import { capConnections } from './connection-cap.js';
import { HttpError, readBody, sendReply, type Reply } from './http-io.js';
import type { LockedOutPatient } from './order-rules.js';
import type { OrderStore } from './order-store.js';
import { matchRoute } from './routes.js';

/**
 * The sandbox's HTTP front: admin routes (only when started with an admin token) pass the admin guard and are
 * never faulted; `/api/` routes pass the fault switches, then the bearer check, then their handler. Every
 * failure is the service's `{ error, status, details }` envelope.
 */

export interface ApiServerDeps {
  store: OrderStore;
  faults: FaultSwitches;
  verifyAccessToken: AccessTokenVerifier;
  lockedOut: readonly LockedOutPatient[];
  logger: Logger;
  /** This launch's admin token; null: there are no admin routes (404, as for any unknown path). */
  adminToken: string | null;
}

export interface ApiServer {
  server: Server;
  requestCount(): number;
  /** Stops accepting, drops open connections and abandons requests still waiting out injected latency. */
  close(): Promise<void>;
}

/** Destroys the connection with no reply: what a crash or a reset looks like from the client's side. */
function drop(req: IncomingMessage): void {
  req.socket.destroy();
}

export function createApiServer(deps: ApiServerDeps): ApiServer {
  let apiRequests = 0;
  let closing = false;
  const waiting = new Set<{ timer: NodeJS.Timeout; resolve: (carryOn: boolean) => void }>();

  /** Waits out the latency fault; resolves false when the sandbox closes meanwhile. */
  const delay = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          waiting.delete(entry);
          resolve(!closing);
        }, ms),
        resolve,
      };
      waiting.add(entry);
    });

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    apiRequests += 1;
    const { faults } = deps;
    // An outage refuses everything on arrival: the client sees its connection dropped with no answer.
    if (faults.get().outage) return drop(req);
    if (faults.get().movedApi) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>');
      return;
    }
    // The token before the body (up to 1 MB), and no body read for a request no route with a scope takes (only
    // those read one): a caller without a token is answered without its body being held, however slowly it
    // trickles one in (finding 37 capped the connections; this removes the cause, finding 42).
    const early = matchRoute(req.method ?? 'GET', url.pathname);
    const scoped = early !== null && 'route' in early ? early.route.scope : null;
    if (scoped) await authorise(req, scoped, deps.verifyAccessToken);
    const rawBody = scoped ? await readBody(req) : '';
    const { retryAfterSeconds } = faults.get();
    const latencyMs = faults.latency();
    if (latencyMs > 0 && !(await delay(latencyMs))) return drop(req);
    if (faults.fires('rateLimitRate')) {
      throw new HttpError(
        429,
        'Too Many Requests',
        { message: `too many requests: retry after ${retryAfterSeconds} seconds` },
        { 'retry-after': String(retryAfterSeconds) },
      );
    }
    if (faults.fires('errorRate')) {
      throw new HttpError(500, 'Internal Server Error', { message: 'the service failed (injected fault)' });
    }
    // Received in full but never processed: nothing is stored.
    if (faults.fires('resetRate')) return drop(req);

    const match = matchRoute(req.method ?? 'GET', url.pathname);
    if (!match) throw new HttpError(404, 'Not Found', { message: `no endpoint ${url.pathname}` });
    if ('allowed' in match) {
      throw new HttpError(
        405,
        'Method Not Allowed',
        { message: `use ${match.allowed.join(' or ')}` },
        { allow: match.allowed.join(', ') },
      );
    }
    const { route } = match;
    // Again after the faults, as before: a token that expired while injected latency was waited out is refused.
    if (route.scope) await authorise(req, route.scope, deps.verifyAccessToken);
    if (closing) return drop(req);
    const reply = route.handler({ url, rawBody, store: deps.store, lockedOut: deps.lockedOut });
    // Committed above (better-sqlite3 is synchronous); now lose the answer, as a crash right after commit would.
    if (route.mutating && reply.status < 300 && faults.fires('commitThenDropRate')) return drop(req);
    // Committed too, but a gateway (or the service itself, after its write) answers with a 5xx.
    if (route.mutating && reply.status < 300 && faults.fires('commitThenStatusRate')) {
      const status = faults.get().commitThenStatus;
      throw new HttpError(status, STATUS_CODES[status] ?? 'Server Error', {
        message: 'the request failed (injected fault: it was stored before this answer)',
      });
    }
    sendReply(res, reply);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const started = Date.now();
    const path = url.pathname.toLowerCase();
    try {
      if (path.startsWith('/__sandbox/') && deps.adminToken !== null) {
        checkAdminRequest(req, deps.adminToken);
        sendReply(res, handleAdmin(req.method ?? 'GET', path, await readBody(req), deps));
      } else if (path.startsWith('/api/')) {
        await handleApi(req, res, url);
      } else {
        throw new HttpError(404, 'Not Found', { message: `no endpoint ${url.pathname}` });
      }
    } catch (error) {
      let reply: Reply;
      if (error instanceof HttpError) {
        reply = error.toReply();
      } else {
        deps.logger.error('sandbox handler failed', {
          path,
          error: error instanceof Error ? error.message : 'unknown',
        });
        reply = new HttpError(500, 'Internal Server Error', { message: 'the sandbox failed unexpectedly' }).toReply();
      }
      if (!closing) sendReply(res, reply);
    } finally {
      deps.logger.info('sandbox request', {
        method: req.method,
        path,
        status: res.headersSent ? res.statusCode : 0,
        latencyMs: Date.now() - started,
      });
    }
  }

  const server = capConnections(
    createServer((req, res) => {
      // Before anything else (faults, admin routes, the API): a request for another Host is a rebinding page's.
      const url = admitRequest(req, res);
      if (url !== undefined) void handle(req, res, url);
    }),
  );

  return {
    server,
    requestCount: () => apiRequests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing = true;
        for (const entry of waiting) {
          clearTimeout(entry.timer);
          entry.resolve(false);
        }
        waiting.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
