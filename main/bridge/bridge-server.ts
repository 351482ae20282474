import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { BRIDGE_SOCKET_PATH } from '../../shared/transport-protocol.js';
import { MAX_MESSAGE_BYTES } from '../../shared/contract.js';
import type { CoreConnection } from '../transport/core-connection.js';
import { createBridgeSecret } from './bridge-secret.js';
import { contentTypeFor, rendererCsp, rendererSecurityHeaders, resolveRendererFile } from './renderer-files.js';
import { isDownloadPath, removeExpiredDownloads, serveDownload } from './export-downloads.js';
import { hasAllowedHost, hasOwnOrigin } from './request-checks.js';
import { runSocketSession } from './socket-session.js';

export interface BridgeOptions {
  /** The core: in browser mode its host process's client (main/host/core-client.ts), which the bridge relays to. */
  core: CoreConnection;
  /** The built renderer (out/renderer). */
  staticDir: string;
  /** 0 or absent: any free port. */
  port?: number;
  /** Where the core writes browser-mode exports (`exportDownloadsDir(dataDir)`): served once each, then removed. */
  downloadsDir?: string;
}

export interface RunningBridge {
  /** The address to open: the secret rides in the fragment, which browsers never send to the server. */
  url: string;
  origin: string;
  port: number;
  secret: string;
  close(): Promise<void>;
}

/**
 * Connections the bridge takes at once (page loads, the page's socket, several tabs fit many times over). Before it
 * presents the secret, a socket may already send most of a 1 MB frame, held until the frame ends or the socket goes:
 * uncapped, any local process (which may set any `Origin`) could open thousands and end the host out of memory
 * (docs/security.md, finding 38). One more is closed by Node before any of it is read.
 */
export const MAX_BRIDGE_CONNECTIONS = 64;

function refuseUpgrade(socket: Socket, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** The request's path, or undefined for a target that is not a URL path at all. */
function pathOf(request: IncomingMessage): string | undefined {
  try {
    return new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
  } catch {
    return undefined;
  }
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  response.end(text);
}

/**
 * Browser mode's host: serves the built renderer and the contract over a WebSocket, on 127.0.0.1 only. The
 * page proves it was opened from the printed URL by presenting the launch secret on the socket.
 */
export async function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  const secret = createBridgeSecret();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  let port = 0;
  let origin = '';
  let csp = '';

  const serveStatic = async (request: IncomingMessage, response: ServerResponse) => {
    if (!hasAllowedHost(request, port)) return plain(response, 403, 'Forbidden host');
    const path = pathOf(request);
    if (path !== undefined && isDownloadPath(path)) {
      if (!options.downloadsDir) return plain(response, 404, 'Not found');
      return serveDownload(request, response, path, { dir: options.downloadsDir, origin });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(response, 405, 'Method not allowed');
    const file = path === undefined ? undefined : await resolveRendererFile(options.staticDir, path);
    if (!file) return plain(response, 404, 'Not found');
    response.writeHead(200, { ...rendererSecurityHeaders(csp), 'Content-Type': contentTypeFor(file) });
    if (request.method === 'HEAD') return response.end();
    createReadStream(file)
      .on('error', () => response.destroy())
      .pipe(response);
  };

  const server = createServer((request, response) => {
    serveStatic(request, response).catch(() => plain(response, 500, 'Internal error'));
  });
  server.maxConnections = MAX_BRIDGE_CONNECTIONS;

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    // Node leaves an upgrading socket without an error listener: a client resetting it while it is refused made
    // an uncaught error that ended the host (docs/security.md, finding 12). ws adds its own once it takes over.
    socket.on('error', () => socket.destroy());
    if (pathOf(request) !== BRIDGE_SOCKET_PATH) return refuseUpgrade(socket, 404, 'Not Found');
    if (!hasAllowedHost(request, port) || !hasOwnOrigin(request, origin)) {
      return refuseUpgrade(socket, 403, 'Forbidden');
    }
    wss.handleUpgrade(request, socket, head, (ws) => runSocketSession(ws, { core: options.core, secret }));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  csp = rendererCsp([`ws://127.0.0.1:${port}`]);
  const { downloadsDir } = options;
  const sweep = downloadsDir ? setInterval(() => void removeExpiredDownloads(downloadsDir), 60_000).unref() : undefined;

  return {
    url: `${origin}/#secret=${secret}`,
    origin,
    port,
    secret,
    async close() {
      clearInterval(sweep);
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
