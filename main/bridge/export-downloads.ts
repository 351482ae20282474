import { createReadStream } from 'node:fs';
import { lstat, readdir, rename, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DOWNLOAD_ID_PATTERN, DOWNLOAD_PATH_PREFIX } from '../../shared/log-contract.js';

/**
 * Browser mode's download of an export (`GET /downloads/<id>.<csv|jsonl>?name=<file name>`): the core wrote the
 * export (the log, a batch's errors or template) to a private file (main/core/platform/export-files.ts) and answered
 * its call over the socket, which only a page that presented the launch secret can use, with the file's id: 256
 * random bits, the capability. The file is streamed from disk (memory stays flat however large it is), once, and
 * removed; one not fetched within `MAX_AGE_MS` is removed unread. The bridge's other checks hold here too: the `Host` must be the bridge's own (DNS
 * rebinding), and a request another site started (`Sec-Fetch-Site`, `Origin`) is refused.
 */

export const MAX_AGE_MS = 10 * 60_000;

const PATH = /^\/downloads\/([A-Za-z0-9_-]+)\.(csv|jsonl)$/;
const NAME = /^[\w.-]{1,100}$/;
const TYPES = { csv: 'text/csv; charset=utf-8', jsonl: 'application/x-ndjson; charset=utf-8' } as const;

export function isDownloadPath(path: string): boolean {
  return path.startsWith(DOWNLOAD_PATH_PREFIX);
}

function refuse(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  response.end(text);
}

/** Whether the request came from the bridge's own page, when the browser says where it came from. */
function fromOwnPage(request: IncomingMessage, origin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const from = request.headers.origin;
  return from === undefined || from === origin;
}

export interface DownloadOptions {
  /** Where the core writes downloads (`exportDownloadsDir(dataDir)`). */
  dir: string;
  /** The bridge's own origin (`http://127.0.0.1:PORT`). */
  origin: string;
  now?: () => number;
}

/** Answers one download request (the caller has already checked the `Host`). */
export async function serveDownload(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  options: DownloadOptions,
): Promise<void> {
  if (request.method !== 'GET') return refuse(response, 405, 'Method not allowed');
  if (!fromOwnPage(request, options.origin)) return refuse(response, 403, 'Forbidden');
  const match = PATH.exec(path);
  const id = match?.[1];
  const format = match?.[2] as 'csv' | 'jsonl' | undefined;
  if (!id || !format || !DOWNLOAD_ID_PATTERN.test(id)) return refuse(response, 404, 'Not found');
  const file = join(options.dir, `${id}.${format}`);
  // Taken before it is read, so a second request for the same id finds nothing (the rename is atomic).
  const taken = `${file}.sending`;
  try {
    await rename(file, taken);
  } catch {
    return refuse(response, 404, 'This download was already taken or has expired: export again.');
  }
  const info = await lstat(taken).catch(() => undefined);
  const now = options.now?.() ?? Date.now();
  if (!info?.isFile() || now - info.mtimeMs > MAX_AGE_MS) {
    await rm(taken, { force: true });
    return refuse(response, 404, 'This download was already taken or has expired: export again.');
  }
  const requested = new URL(request.url ?? '/', options.origin).searchParams.get('name');
  const name =
    requested && NAME.test(requested) && requested.endsWith(`.${format}`) ? requested : `rx-batch-export.${format}`;
  response.writeHead(200, {
    'Content-Type': TYPES[format],
    'Content-Length': String(info.size),
    'Content-Disposition': `attachment; filename="${name}"`,
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
  });
  const removeIt = () => void rm(taken, { force: true });
  createReadStream(taken)
    .on('error', () => {
      removeIt();
      response.destroy();
    })
    .on('close', removeIt)
    .pipe(response);
}

/** Removes downloads nobody fetched in time (the bridge runs it now and then). */
export async function removeExpiredDownloads(dir: string, now = Date.now()): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = join(dir, name);
    const info = await lstat(file).catch(() => undefined);
    if (info && now - info.mtimeMs > MAX_AGE_MS) await rm(file, { force: true });
  }
}
