import { realpath, stat } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * Finding and describing the built renderer's files, for the two hosts that serve them: the browser bridge
 * (HTTP) and the Electron shell (the app:// protocol). Request paths are untrusted: anything that would leave
 * the renderer folder, by `..`, an encoded separator, a NUL or a symlink, resolves to nothing.
 */

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The file a URL path names inside `root` (`/` is index.html), or undefined when there is none or it escapes. */
export async function resolveRendererFile(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  // Separators only ever come from the URL's own slashes; encoded ones or backslashes are refused outright.
  if (decoded.includes('\0') || decoded.includes('\\') || /%2f|%5c/i.test(urlPath)) return undefined;
  const relativePath = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  const realRoot = await realpath(root);
  const candidate = resolve(realRoot, relativePath.split('/').join(sep));
  if (!isInside(realRoot, candidate)) return undefined;
  try {
    const real = await realpath(candidate);
    if (!isInside(realRoot, real)) return undefined;
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The renderer's Content-Security-Policy as a response header. `connectSrc` is what the page may talk to
 * besides itself: the bridge's WebSocket in browser mode, nothing in Electron (IPC is not a connection).
 */
export function rendererCsp(connectSrc: string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connectSrc].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Headers every renderer response carries, whichever host serves it. */
export function rendererSecurityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  };
}
