import { readFile } from 'node:fs/promises';
import { protocol } from 'electron';
import { contentTypeFor, rendererCsp, rendererSecurityHeaders, resolveRendererFile } from '../bridge/renderer-files.js';

/**
 * The renderer is served from app://rx-batch/ rather than file://, so it has a real origin of its own: the
 * CSP's 'self' means just the app, and IPC can check that a sender is this page and nothing else.
 */
const SCHEME = 'app';
const HOST = 'rx-batch';
export const APP_URL = `${SCHEME}://${HOST}/`;

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${SCHEME}:` && parsed.host === HOST;
  } catch {
    return false;
  }
}

/** Serves the built renderer on the app scheme, with the same safe path resolution as the browser bridge. */
export function serveRenderer(rendererDir: string): void {
  const headers = rendererSecurityHeaders(rendererCsp());
  protocol.handle(SCHEME, async (request) => {
    const url = new URL(request.url);
    const file = url.host === HOST ? await resolveRendererFile(rendererDir, url.pathname) : undefined;
    if (!file) return new Response('Not found', { status: 404 });
    return new Response(await readFile(file), { headers: { ...headers, 'Content-Type': contentTypeFor(file) } });
  });
}
