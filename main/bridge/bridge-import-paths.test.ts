import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BRIDGE_SOCKET_PATH, type ServerMessage } from '../../shared/transport-protocol.js';
import { pageHandshake } from '../../test/support/bridge-handshake-client.js';
import { createCore, type Core } from '../core/app-core.js';
import { MemorySecretStore } from '../core/platform/secret-store.js';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { importFolders } from '../core/import-path-policy.js';
import { silentLogger } from '../core/platform/logger.js';
import { inProcessConnection } from '../transport/core-connection.js';
import { startBridge, type RunningBridge } from './bridge-server.js';

/**
 * Finding 2 of docs/security.md: whoever holds the bridge (its secret, an open tab's script) may import by path
 * only files inside the folders the host's command line named, and a refusal is the same sentence whether the
 * file exists or not.
 */

const TEMPLATE = join(import.meta.dirname, '../../test/fixtures/import/template-example.csv');

let dir: string;
let allowed: string;
let homeFile: string;
let core: Core;
let bridge: RunningBridge;
let socket: WebSocket;
let nextId = 1;
const waiting = new Map<number, (message: ServerMessage) => void>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxbatch-bridge-paths-'));
  allowed = join(dir, 'batches');
  await mkdir(join(allowed, 'monday'), { recursive: true });
  await copyFile(TEMPLATE, join(allowed, 'monday', 'orders.csv'));
  await writeFile(join(dir, 'outside.csv'), 'Surname\nSecret\n');
  await symlink(join(dir, 'outside.csv'), join(allowed, 'link.csv'));
  await symlink('/etc', join(allowed, 'etc'));
  // A private file in the home directory, as an attacker would aim for.
  homeFile = join(homedir(), `.rxbatch-bridge-test-${process.pid}.csv`);
  await writeFile(homeFile, 'Surname\nPrivate\n', { mode: 0o600 });

  core = await createCore({
    dataDir: join(dir, 'data'),
    appVersion: '9.9.9',
    transport: 'browser',
    secrets: new MemorySecretStore(),
    logger: silentLogger,
    startLocalSandbox: false,
    startOutbox: false,
    importPaths: await importFolders([allowed]),
  });
  bridge = await startBridge({ core: inProcessConnection(core), staticDir: dir });
  socket = new WebSocket(`ws://127.0.0.1:${bridge.port}${BRIDGE_SOCKET_PATH}`, { headers: { Origin: bridge.origin } });
  const handshake = pageHandshake(bridge.secret);
  await new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as ServerMessage;
      if ('challenge' in message) void handshake.reply(message).then((proof) => socket.send(proof), reject);
      else if ('ready' in message) resolve();
      else if ('id' in message && message.id !== null) waiting.get(message.id)?.(message);
    });
    socket.once('open', () => socket.send(handshake.hello));
    socket.once('error', reject);
  });
});

afterAll(async () => {
  socket.terminate();
  await bridge.close();
  await core.close();
  await rm(homeFile, { force: true });
  await rm(dir, { recursive: true, force: true });
});

function importByPath(path: string): Promise<ServerMessage> {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    socket.send(JSON.stringify({ id, call: 'import.file', input: { environmentId: LOCAL_SANDBOX_ID, path } }));
  });
}

describe('import.file by path over the bridge', () => {
  it('imports a file inside a folder the host was started with', async () => {
    const answer = await importByPath(join(allowed, 'monday', 'orders.csv'));
    expect(answer).toMatchObject({ ok: true, value: { status: 'staged' } });
  });

  it('app.info tells the page which folders those are', async () => {
    expect(await core.handlers['app.info']({})).toMatchObject({ importFolders: [expect.stringContaining('batches')] });
  });

  it('refuses system files, home-directory files, traversal and links out, all with one sentence', async () => {
    const refusals = await Promise.all(
      [
        '/etc/passwd',
        homeFile,
        join(homedir(), 'no-such-file-here.csv'),
        join(allowed, '..', 'outside.csv'),
        join(allowed, 'link.csv'),
        join(allowed, 'etc', 'passwd'),
        join(allowed, 'missing.csv'),
        'relative/orders.csv',
        allowed,
      ].map(importByPath),
    );
    for (const refusal of refusals) expect(refusal).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    // The same words whether the file exists, is readable, or is not there at all: no existence oracle.
    const sentences = new Set(refusals.map((refusal) => JSON.stringify('error' in refusal ? refusal.error : null)));
    expect(sentences.size).toBe(1);
    const [sentence] = sentences;
    expect(sentence).not.toMatch(/passwd|ENOENT|EACCES|exist|not found|permission/i);
  });

  it('with no folder given, no path is allowed at all', async () => {
    const closed = await createCore({
      dataDir: join(dir, 'data-none'),
      appVersion: '9.9.9',
      transport: 'browser',
      secrets: new MemorySecretStore(),
      logger: silentLogger,
      startLocalSandbox: false,
      startOutbox: false,
    });
    try {
      await expect(
        closed.handlers['import.file']({
          environmentId: LOCAL_SANDBOX_ID,
          path: join(allowed, 'monday', 'orders.csv'),
        }),
      ).rejects.toMatchObject({ code: 'forbidden' });
      expect(await closed.handlers['app.info']({})).toMatchObject({ importFolders: [] });
    } finally {
      await closed.close();
    }
  });
});
