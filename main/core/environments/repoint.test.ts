import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RxBatchApi } from '../../../shared/contract.js';
import {
  DEFAULT_CODE_LISTS,
  DEFAULT_SENDING_PACE,
  ORDER_SERVICE_SCOPES,
  type EnvironmentProfileView,
} from '../../../shared/environment.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import type { Core } from '../app-core.js';
import { MemorySecretStore } from '../platform/secret-store.js';
import { authSecretKeys } from '../auth/token-record.js';
import type { ConfirmQuestion } from '../desktop-handlers.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';

/**
 * Finding 1 of docs/security.md: re-pointing an environment must not carry its credentials to the new address.
 * A capture server stands in for the attacker's host and records every request it gets; after a re-point, none
 * may carry the old access token or the stored client secret.
 */

interface Captured {
  method: string;
  url: string;
  authorization: string;
  body: string;
}

async function startCapture(): Promise<{ origin: string; requests: Captured[]; close(): Promise<void> }> {
  const requests: Captured[] = [];
  let origin = '';
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
      });
      // An identity server good enough to be discovered, whose token endpoint is this server too.
      const discovery = request.url === '/.well-known/openid-configuration';
      response.writeHead(discovery ? 200 : 401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          discovery
            ? {
                issuer: origin,
                token_endpoint: `${origin}/token`,
                grant_types_supported: ['client_credentials'],
                token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
              }
            : { error: 'invalid_client' },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const ENVIRONMENT_ID = 'supplier-test';

/** A remote environment signed in with client credentials at the sandbox. */
function remoteProfile(sandbox: RunningSandbox): EnvironmentProfileView {
  return {
    id: ENVIRONMENT_ID,
    name: 'Supplier test',
    kind: 'remote',
    apiBaseUrl: sandbox.apiUrl,
    issuer: sandbox.issuer,
    clientId: sandbox.serviceClient.clientId,
    grant: 'client_credentials',
    scopes: [...ORDER_SERVICE_SCOPES],
    createWithClinicVersion: 'v1',
    requestTimeoutMs: 5_000,
    codeLists: DEFAULT_CODE_LISTS,
    ...DEFAULT_SENDING_PACE,
  };
}

describe('re-pointing an environment (API origin, issuer, client id, grant)', () => {
  let sandbox: RunningSandbox;
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let testCore: TestCore;
  let core: Core;
  let api: RxBatchApi;
  const secrets = new MemorySecretStore();
  const keys = authSecretKeys(ENVIRONMENT_ID);
  let profile: EnvironmentProfileView;

  beforeAll(async () => {
    sandbox = await startSandbox();
    capture = await startCapture();
    testCore = await openTestCore('repoint', { secrets });
    ({ core, api } = testCore);
    profile = remoteProfile(sandbox);
    await api.call('environments.save', { environment: profile, create: true });
  });

  afterAll(async () => {
    await testCore.close();
    await Promise.all([sandbox.close(), capture.close()]);
  });

  /** Signed in at the sandbox with the secret stored; returns the access token the sandbox issued. */
  async function signIn(): Promise<string> {
    await api.call('environments.save', { environment: profile, create: false });
    expect(
      await api.call('signin.clientCredentials', {
        environmentId: ENVIRONMENT_ID,
        clientSecret: sandbox.serviceClient.clientSecret,
      }),
    ).toEqual({ ok: true });
    const stored = JSON.parse((await secrets.get(keys.tokens)) ?? '{}') as { accessToken?: string };
    expect(stored.accessToken).toBeTruthy();
    return stored.accessToken ?? '';
  }

  const carrying = (secret: string) =>
    capture.requests.filter(
      (request) =>
        request.authorization.includes(secret) ||
        request.body.includes(secret) ||
        request.body.includes(encodeURIComponent(secret)) ||
        Buffer.from(request.authorization.replace(/^Basic /, ''), 'base64')
          .toString('utf8')
          .includes(secret),
    );

  beforeEach(() => {
    capture.requests.length = 0;
  });

  it('a new API origin signs out first: no request to it carries the old token, and the change is audited', async () => {
    const token = await signIn();
    await api.call('environments.save', {
      environment: { ...profile, apiBaseUrl: `${capture.origin}/api/` },
      create: false,
    });
    expect(await api.call('signin.status', { environmentId: ENVIRONMENT_ID })).toMatchObject({ signedIn: false });
    expect(await secrets.get(keys.tokens)).toBeNull();
    expect(await secrets.get(keys.clientSecret)).toBeNull();

    // Every secured look-up, and a sign-in with the stored secret, after the re-point.
    await api.call('couriers.priceList', { environmentId: ENVIRONMENT_ID });
    await api.call('products.stock', { environmentId: ENVIRONMENT_ID, productId: 1 });
    await api.call('products.price', { environmentId: ENVIRONMENT_ID, productId: 1, totalPacks: 1 });
    const again = await api.call('signin.clientCredentials', { environmentId: ENVIRONMENT_ID });
    expect(again).toMatchObject({ ok: false });
    // Signed out, a secured call is not sent at all: no request reaches the new address, with a token or without.
    expect(capture.requests).toEqual([]);
    expect(carrying(token)).toEqual([]);
    expect(carrying(sandbox.serviceClient.clientSecret)).toEqual([]);

    const [entry] = core.services.store.audit.search({ action: 'environment.identity-changed', limit: 1 });
    expect(entry?.details).toMatchObject({
      previousApiOrigin: new URL(sandbox.apiUrl).origin,
      apiOrigin: capture.origin,
      previousIssuer: sandbox.issuer,
      issuer: sandbox.issuer,
    });
  });

  it('a new issuer never receives the stored client secret: the admin must type it again', async () => {
    await signIn();
    await api.call('environments.save', { environment: { ...profile, issuer: capture.origin }, create: false });
    const outcome = await api.call('signin.clientCredentials', { environmentId: ENVIRONMENT_ID });
    expect(outcome).toMatchObject({ ok: false, code: 'no-secret' });
    await api.call('connection.check', { environmentId: ENVIRONMENT_ID });
    expect(carrying(sandbox.serviceClient.clientSecret)).toEqual([]);
  });

  it('queued orders wait for the admin after a re-point: a sign-in at the new address does not release them', async () => {
    // signIn() re-points back to the sandbox (from the issuer above), then signs in there.
    await signIn();
    const progress = await api.call('outbox.progress', { environmentId: ENVIRONMENT_ID });
    expect(progress).toMatchObject({ state: 'paused' });
    expect(progress.message).toContain(new URL(sandbox.apiUrl).origin);
    await api.call('outbox.resume', { environmentId: ENVIRONMENT_ID });
    expect(await api.call('outbox.progress', { environmentId: ENVIRONMENT_ID })).not.toMatchObject({
      state: 'paused',
    });
  });

  it('a new client id or grant also signs out; an edit of anything else keeps the sign-in', async () => {
    await signIn();
    await api.call('environments.save', {
      environment: { ...profile, name: 'Renamed', requestTimeoutMs: 9_000 },
      create: false,
    });
    expect(await api.call('signin.status', { environmentId: ENVIRONMENT_ID })).toMatchObject({ signedIn: true });

    await api.call('environments.save', { environment: { ...profile, clientId: 'another-client' }, create: false });
    expect(await api.call('signin.status', { environmentId: ENVIRONMENT_ID })).toMatchObject({ signedIn: false });
    expect(await secrets.get(keys.clientSecret)).toBeNull();

    await signIn();
    await api.call('environments.save', { environment: { ...profile, grant: 'device' }, create: false });
    expect(await api.call('signin.status', { environmentId: ENVIRONMENT_ID })).toMatchObject({ signedIn: false });
  });

  it.each([
    ['apiBaseUrl', 'http://orders.example.com/'],
    ['issuer', 'http://id.example.com'],
    ['apiBaseUrl', 'ftp://orders.example.com/'],
  ] as const)('refuses %s %s (https only, plain http for this computer alone)', async (field, url) => {
    const refused = await api
      .call('environments.save', { environment: { ...profile, [field]: url }, create: false })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'invalid-input' });
    expect(JSON.stringify(refused)).toMatch(/https/);
    expect(core.services.registry.get(ENVIRONMENT_ID)[field]).not.toBe(url);
  });
});

describe('adding and re-pointing in the desktop app', () => {
  it('asks the admin in a dialog main shows; a refusal changes nothing and keeps the sign-in', async () => {
    const asked: ConfirmQuestion[] = [];
    let answer = false;
    const secrets = new MemorySecretStore();
    const sandbox = await startSandbox();
    const testCore = await openTestCore('repoint-desktop', {
      secrets,
      desktop: {
        chooseFiles: () => Promise.resolve({ paths: [], skipped: [] }),
        takeImportRequests: () => ({ paths: [], skipped: [] }),
        openDataFolder: () => Promise.resolve({}),
        confirm: (question) => {
          asked.push(question);
          return Promise.resolve(answer);
        },
        chooseSavePath: () => Promise.resolve(null),
      },
    });
    try {
      const { api } = testCore;
      const profile = remoteProfile(sandbox);
      // Adding one is asked too: otherwise the page's script could add a server of its own and send orders there.
      await expect(api.call('environments.save', { environment: profile, create: true })).rejects.toMatchObject({
        code: 'forbidden',
      });
      expect(testCore.core.services.registry.find(ENVIRONMENT_ID)).toBeUndefined();
      answer = true;
      await api.call('environments.save', { environment: profile, create: true });
      expect(asked.map(({ kind, message }) => ({ kind, message }))).toEqual([
        { kind: 'identity-change', message: 'Add "Supplier test"?' },
        { kind: 'identity-change', message: 'Add "Supplier test"?' },
      ]);
      asked.length = 0;
      answer = false;
      await api.call('signin.clientCredentials', {
        environmentId: ENVIRONMENT_ID,
        clientSecret: sandbox.serviceClient.clientSecret,
      });
      const moved = { ...profile, apiBaseUrl: 'https://orders.elsewhere.example/' };
      await expect(api.call('environments.save', { environment: moved, create: false })).rejects.toMatchObject({
        code: 'forbidden',
      });
      expect(asked).toEqual([
        expect.objectContaining({
          kind: 'identity-change',
          message: 'Change where "Supplier test" connects?',
          detail: expect.stringMatching(
            `^Order Service: ${new URL(sandbox.apiUrl).origin} → https://orders.elsewhere.example\n\n`,
          ) as unknown,
        }),
      ]);
      expect(testCore.core.services.registry.get(ENVIRONMENT_ID).apiBaseUrl).toBe(sandbox.apiUrl);
      expect(await api.call('signin.status', { environmentId: ENVIRONMENT_ID })).toMatchObject({ signedIn: true });

      answer = true;
      await api.call('environments.save', { environment: moved, create: false });
      expect(await api.call('signin.status', { environmentId: ENVIRONMENT_ID })).toMatchObject({ signedIn: false });
    } finally {
      await testCore.close();
      await sandbox.close();
    }
  });
});
