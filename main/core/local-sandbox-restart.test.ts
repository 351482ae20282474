import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ORDER_SERVICE_SCOPES } from '../../shared/environment.js';
import { completeDevicePages } from '../../sandbox/identity/device-pages-driver.js';
import { DEVICE_CLIENT_ID, SERVICE_CLIENT_ID } from '../../sandbox/identity/provider-config.js';
import { launchChromium } from '../../test/support/browser.js';
import { createCore, type Core } from './app-core.js';
import { LOCAL_SANDBOX_DEVICE_ID, LOCAL_SANDBOX_ID } from './environments/presets.js';
import { silentLogger } from './platform/logger.js';
import { MemorySecretStore } from './platform/secret-store.js';
import { portOf } from './sandbox-addresses.js';

// Issue #13: the built-in sandbox keeps its addresses across restarts (or the app follows them), so a profile made
// against it keeps working, and it offers both sign-in methods out of the box. Real restarts of the core on one
// data directory, the sandbox on real ports.

let dir: string | undefined;
const open: Core[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const core of open.splice(0)) await core.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const secrets = new MemorySecretStore();

async function start(dataDir: string): Promise<Core> {
  const core = await createCore({
    dataDir,
    appVersion: '9.9.9',
    transport: 'direct',
    secrets,
    logger: silentLogger,
    startOutbox: false,
  });
  open.push(core);
  return core;
}

async function stop(core: Core): Promise<void> {
  open.splice(open.indexOf(core), 1);
  await core.close();
}

const MINE = 'my-sandbox';

/** A profile the admin made against the running sandbox (device sign-in), as Settings adds one. */
async function addProfile(core: Core): Promise<void> {
  const { running: _running, ...local } = core.services.registry.list().find((e) => e.id === LOCAL_SANDBOX_ID)!;
  await core.handlers['environments.save']({
    create: true,
    environment: {
      ...local,
      id: MINE,
      name: 'My sandbox profile',
      kind: 'remote',
      clientId: DEVICE_CLIENT_ID,
      grant: 'device',
      scopes: [...ORDER_SERVICE_SCOPES],
    },
  });
}

const repoints = (core: Core, environmentId: string) =>
  core.services.store.audit.search({ action: 'environment.identity-changed', environmentId }).length;

describe('the local sandbox across restarts', () => {
  it('offers service-account and device sign-in out of the box, on the same addresses after a restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-sandbox-restart-'));
    const dataDir = join(dir, 'data');
    const first = await start(dataDir);
    const local = first.services.registry.get(LOCAL_SANDBOX_ID);
    expect(local).toMatchObject({ grant: 'client_credentials', clientId: SERVICE_CLIENT_ID });
    expect(first.services.registry.get(LOCAL_SANDBOX_DEVICE_ID)).toMatchObject({
      kind: 'local-sandbox',
      grant: 'device',
      clientId: DEVICE_CLIENT_ID,
      apiBaseUrl: local.apiBaseUrl,
      issuer: local.issuer,
    });
    expect((await first.handlers['signin.status']({ environmentId: LOCAL_SANDBOX_ID })).signedIn).toBe(true);
    // Device sign-in at the sandbox's own sign-in page, finished by a person in a browser.
    const device = await first.handlers['signin.startDevice']({ environmentId: LOCAL_SANDBOX_DEVICE_ID });
    expect(device.verificationUri.startsWith(local.issuer)).toBe(true);
    const browser = await launchChromium();
    try {
      await completeDevicePages(await browser.newPage(), {
        url: device.verificationUriComplete ?? '',
        username: 'sandbox-admin',
        password: 'sandbox-password',
        decision: 'allow',
      });
    } finally {
      await browser.close();
    }
    await vi.waitFor(
      async () =>
        expect((await first.handlers['signin.status']({ environmentId: LOCAL_SANDBOX_DEVICE_ID })).signedIn).toBe(true),
      { timeout: 10_000, interval: 100 },
    );
    await addProfile(first);
    const repointsBefore = repoints(first, LOCAL_SANDBOX_ID);
    await stop(first);

    const second = await start(dataDir);
    const again = second.services.registry.get(LOCAL_SANDBOX_ID);
    expect({ api: again.apiBaseUrl, issuer: again.issuer }).toEqual({ api: local.apiBaseUrl, issuer: local.issuer });
    // Not re-pointed (and so not signed out) by the restart; the profile made against it is untouched and works.
    expect(repoints(second, LOCAL_SANDBOX_ID)).toBe(repointsBefore);
    expect(repoints(second, MINE)).toBe(0);
    expect(second.services.registry.get(MINE)).toMatchObject({ apiBaseUrl: local.apiBaseUrl, issuer: local.issuer });
    const check = await second.handlers['connection.check']({ environmentId: MINE });
    expect(check.api.reachable).toBe(true);
    expect(check.identity).toMatchObject({ reachable: true, deviceAuthorization: true });
    expect((await second.handlers['signin.status']({ environmentId: LOCAL_SANDBOX_ID })).signedIn).toBe(true);
    // The device sign-in outlived the restart (the sandbox keeps its keys and sign-ins): a secured call works.
    const prices = await second.handlers['couriers.priceList']({ environmentId: LOCAL_SANDBOX_DEVICE_ID });
    expect(prices.ok).toBe(true);
  });

  it('moves when its port is taken, and the profiles made against it follow (signed out, audited)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-sandbox-moved-'));
    const dataDir = join(dir, 'data');
    const first = await start(dataDir);
    const before = first.services.registry.get(LOCAL_SANDBOX_ID);
    await addProfile(first);
    await stop(first);

    // Something else took the sandbox's API port meanwhile.
    const squatter = createServer((_request, response) => response.writeHead(418).end());
    servers.push(squatter);
    await new Promise<void>((resolve) => squatter.listen(portOf(before.apiBaseUrl), '127.0.0.1', resolve));

    const second = await start(dataDir);
    const after = second.services.registry.get(LOCAL_SANDBOX_ID);
    expect(after.apiBaseUrl).not.toBe(before.apiBaseUrl);
    expect(second.services.registry.get(MINE)).toMatchObject({ apiBaseUrl: after.apiBaseUrl, issuer: after.issuer });
    expect(second.services.registry.get(LOCAL_SANDBOX_DEVICE_ID)).toMatchObject({ apiBaseUrl: after.apiBaseUrl });
    expect((await second.handlers['connection.check']({ environmentId: MINE })).api.reachable).toBe(true);
    expect(second.services.store.audit.search({ action: 'environment.identity-changed', environmentId: MINE })).toEqual(
      [
        expect.objectContaining({
          actor: 'system',
          details: expect.objectContaining({
            previousApiOrigin: new URL(before.apiBaseUrl).origin,
            apiOrigin: new URL(after.apiBaseUrl).origin,
          }) as unknown,
        }),
      ],
    );

    // The next start is on the new addresses (remembered again), with nothing to follow.
    await stop(second);
    const third = await start(dataDir);
    expect(third.services.registry.get(LOCAL_SANDBOX_ID).apiBaseUrl).toBe(after.apiBaseUrl);
    expect(repoints(third, MINE)).toBe(1);
  });
});
