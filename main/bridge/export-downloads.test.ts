import { mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlersWith } from '../../test/support/call-handlers.js';
import { exportDownloadsDir, newExportDownload } from '../core/platform/export-files.js';
import { CoreEvents } from '../core/platform/events.js';
import { inProcessConnection } from '../transport/core-connection.js';
import { startBridge, type RunningBridge } from './bridge-server.js';
import { MAX_AGE_MS } from './export-downloads.js';

// Browser mode's export download (issue #16): a file the core wrote, streamed once to the bridge's own page and
// removed; every other request refused, as the bridge's other routes are.
let dir: string;
let dataDir: string;
let bridge: RunningBridge;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxbatch-downloads-'));
  dataDir = join(dir, 'data');
  bridge = await startBridge({
    core: inProcessConnection({ handlers: handlersWith({}), events: new CoreEvents() }),
    staticDir: dir,
    downloadsDir: exportDownloadsDir(dataDir),
  });
});

afterAll(async () => {
  await bridge.close();
  await rm(dir, { recursive: true, force: true });
});

function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string; chunks: number }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port: bridge.port, path, method, headers: { 'Sec-Fetch-Site': 'same-origin', ...headers } },
      (response) => {
        let body = '';
        let chunks = 0;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
          chunks += 1;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body, chunks }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function exported(text: string, format: 'csv' | 'jsonl' = 'csv') {
  const { id, path } = newExportDownload(dataDir, format);
  await writeFile(path, text, { mode: 0o600 });
  return { id, path, url: `/downloads/${id}.${format}` };
}

describe('export downloads over the bridge', () => {
  it('streams the file once as an attachment, then it is gone', async () => {
    const text = `seq,at\r\n${'1,2025-03-03T09:00:00.000Z\r\n'.repeat(20_000)}`;
    const file = await exported(text);
    const first = await get(`${file.url}?name=rx-batch-log-2025-03-03.csv`);
    expect(first.status).toBe(200);
    expect(first.body).toBe(text);
    // Read from disk in pieces, not sent as one buffer.
    expect(first.chunks).toBeGreaterThan(1);
    expect(first.headers['content-disposition']).toBe('attachment; filename="rx-batch-log-2025-03-03.csv"');
    expect(first.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(first.headers['cache-control']).toBe('no-store');
    await expect.poll(() => readdir(exportDownloadsDir(dataDir))).toEqual([]);
    const again = await get(file.url);
    expect(again.status).toBe(404);
    expect(again.body).not.toContain('seq,at');
  });

  it('refuses another site, a foreign Host, another method, a made-up id, a link and an expired file', async () => {
    const file = await exported('seq\r\n1\r\n');
    expect((await get(file.url, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await get(file.url, { Origin: 'https://evil.example' })).status).toBe(403);
    expect((await get(file.url, { Host: 'evil.example:80' })).status).toBe(403);
    expect((await get(file.url, {}, 'POST')).status).toBe(405);
    expect((await get(`/downloads/${'A'.repeat(43)}.csv`)).status).toBe(404);
    expect((await get(`/downloads/..%2F..%2Fdata.csv`)).status).toBe(404);
    // Still there after every refusal: only the page's own request takes it.
    expect((await get(file.url)).body).toBe('seq\r\n1\r\n');

    const linked = newExportDownload(dataDir, 'csv');
    await writeFile(join(dir, 'secret.txt'), 'not an export');
    await symlink(join(dir, 'secret.txt'), linked.path);
    const viaLink = await get(`/downloads/${linked.id}.csv`);
    expect(viaLink.status).toBe(404);
    expect(viaLink.body).not.toContain('not an export');

    const old = await exported('old\r\n');
    const past = new Date(Date.now() - MAX_AGE_MS - 60_000);
    await utimes(old.path, past, past);
    expect((await get(old.url)).status).toBe(404);
    await expect.poll(() => readdir(exportDownloadsDir(dataDir))).toEqual([]);
  });

  it('serves nothing under /downloads/ when the bridge has no downloads folder', async () => {
    const plain = await startBridge({
      core: inProcessConnection({ handlers: handlersWith({}), events: new CoreEvents() }),
      staticDir: dir,
    });
    try {
      const file = await exported('seq\r\n');
      const response = await new Promise<number>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port: plain.port, path: file.url }, (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
      expect(response).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
