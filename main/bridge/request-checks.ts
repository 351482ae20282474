import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to the bridge. It listens on 127.0.0.1 only, but a web page anywhere can still point a browser
 * at it: a `Host` other than the bridge's own means DNS rebinding (an attacker's name resolving to 127.0.0.1),
 * and an `Origin` other than the bridge's own means another site's script opening the WebSocket.
 */

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function hasAllowedHost(request: IncomingMessage, port: number): boolean {
  const host = request.headers.host;
  return typeof host === 'string' && allowedHosts(port).includes(host.toLowerCase());
}

export function hasOwnOrigin(request: IncomingMessage, origin: string): boolean {
  return request.headers.origin === origin;
}
