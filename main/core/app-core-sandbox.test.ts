import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core, type CoreOptions } from './app-core.js';
import { MemorySecretStore } from './platform/secret-store.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { ADMIN_TOKEN_FILE, LOCAL_SANDBOX_DIR } from './local-sandbox.js';
import { silentLogger } from './platform/logger.js';

/**
 * The local sandbox as the app embeds it (createCore, as the desktop app and browser mode start it): it is not a
 * test double with open doors. Its admin routes (every order's raw body, fault switches) do not exist.
 */

let dataDir: string | undefined;
let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

async function startCore(extra: Partial<CoreOptions> = {}): Promise<{ core: Core; apiUrl: string }> {
  dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-core-sandbox-'));
  core = await createCore({
    dataDir,
    appVersion: '9.9.9',
    transport: 'browser',
    secrets: new MemorySecretStore(),
    logger: silentLogger,
    startOutbox: false,
    ...extra,
  });
  return { core, apiUrl: core.services.registry.get(LOCAL_SANDBOX_ID).apiBaseUrl };
}

const tokenFile = () => join(dataDir!, LOCAL_SANDBOX_DIR, ADMIN_TOKEN_FILE);

/** A GET to a loopback URL with the Host header a DNS-rebinding page's request would carry (fetch cannot set it). */
function statusUnderHost(url: URL, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers: { host } });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe("the app's embedded sandbox", () => {
  it('has no admin routes: /__sandbox/orders and /__sandbox/faults answer 404, as an unknown path does', async () => {
    const { core, apiUrl } = await startCore();
    const requests: Array<[string, RequestInit]> = [
      ['__sandbox/orders', {}],
      ['__sandbox/faults', {}],
      ['__sandbox/cpu', {}],
      [
        '__sandbox/faults',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"outage":true}' },
      ],
      // What a cross-site page can send without a preflight.
      ['__sandbox/faults', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"outage":true}' }],
    ];
    for (const [path, init] of requests) {
      const response = await fetch(new URL(path, apiUrl), init);
      expect(response.status, `${init.method ?? 'GET'} ${path}`).toBe(404);
      expect(await response.text()).not.toContain('rawBody');
    }
    const unknown = await fetch(new URL('__sandbox/nothing', apiUrl));
    expect(unknown.status).toBe(404);
    // Still the working service: the outage switch did not reach it.
    const search = await fetch(new URL('api/v2/Product/search?searchTerm=para', apiUrl));
    expect(search.status).toBe(200);
    expect((await core.handlers['connection.check']({ environmentId: LOCAL_SANDBOX_ID })).api.reachable).toBe(true);
    expect(existsSync(tokenFile())).toBe(false);
  });

  it('answers only requests addressed to its own Host: a DNS-rebinding page gets 421 from the API and the issuer', async () => {
    const { core, apiUrl } = await startCore();
    const { issuer } = core.services.registry.get(LOCAL_SANDBOX_ID);
    const search = new URL('api/v2/Product/search?searchTerm=para', apiUrl);
    const discovery = new URL(`${issuer}/.well-known/openid-configuration`);
    for (const url of [search, discovery]) {
      expect(await statusUnderHost(url, `evil.example:${url.port}`)).toBe(421);
      expect(await statusUnderHost(url, url.host)).toBe(200);
    }
  });

  it.skipIf(process.platform === 'win32')('keeps its folder 0700 and its SQLite files 0600', async () => {
    await startCore();
    const dir = join(dataDir!, LOCAL_SANDBOX_DIR);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const db = join(dir, 'sandbox-orders.sqlite');
    for (const file of [db, `${db}-wal`, `${db}-shm`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
  });

  it("turns them on only when asked (browser mode's test switch), behind a token kept in a 0600 file", async () => {
    const { core, apiUrl } = await startCore({ localSandboxAdminRoutes: true });
    const token = readFileSync(tokenFile(), 'utf8');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    if (process.platform !== 'win32') expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    const orders = new URL('__sandbox/orders', apiUrl);
    expect((await fetch(orders)).status).toBe(401);
    expect((await fetch(orders, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await core.close();
    // The token goes with the run.
    expect(existsSync(tokenFile())).toBe(false);
  });
});
