import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/support/browser.js';
import { completeDevicePages } from './device-pages-driver.js';
import { KEYS_FILE, STORE_FILE } from './identity-state.js';
import { startIdentity, type RunningIdentity } from './index.js';
import { postForm, tokenRequest } from './test-http.js';

// Issue #13: a sign-in made against the app's embedded sandbox outlives a restart (its keys, service client
// secret and records kept in its folder), as one against a real service does; without a folder nothing persists.

const API = 'http://127.0.0.1:4322/';
const SCOPE = 'openid offline_access cloudrx_orderservice';

let browser: Browser;
let dir: string;
beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-identity-state-'));
});
afterAll(async () => {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
});

async function deviceSignIn(identity: RunningIdentity): Promise<{ access_token?: string; refresh_token?: string }> {
  const authorization = (await (
    await postForm(`${identity.issuer}/connect/deviceauthorization`, {
      client_id: identity.deviceClient.clientId,
      scope: SCOPE,
    })
  ).json()) as { device_code: string; verification_uri_complete: string };
  const context = await browser.newContext();
  try {
    await completeDevicePages(await context.newPage(), {
      url: authorization.verification_uri_complete,
      username: identity.user.username,
      password: identity.user.password,
      decision: 'allow',
    });
  } finally {
    await context.close();
  }
  const { status, body } = await tokenRequest(identity.issuer, {
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    client_id: identity.deviceClient.clientId,
    device_code: authorization.device_code,
  });
  expect(status).toBe(200);
  return body;
}

describe('the identity server with a state folder', () => {
  it('keeps its keys, service client secret and sign-ins across a restart, in 0600 files', async () => {
    const first = await startIdentity({ apiAudience: API, stateDir: dir });
    const port = Number(new URL(first.issuer).port);
    let tokens: { access_token?: string; refresh_token?: string };
    const secret = first.serviceClient.clientSecret;
    try {
      tokens = await deviceSignIn(first);
    } finally {
      await first.close();
    }
    for (const file of [KEYS_FILE, STORE_FILE]) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);

    const second = await startIdentity({ apiAudience: API, stateDir: dir, port });
    try {
      expect(second.serviceClient.clientSecret).toBe(secret);
      // The access token from before the restart still verifies, and the refresh token still refreshes.
      expect(await second.verifyAccessToken(tokens.access_token ?? '')).toMatchObject({ subject: 'sandbox-admin' });
      const refreshed = await tokenRequest(second.issuer, {
        grant_type: 'refresh_token',
        client_id: second.deviceClient.clientId,
        refresh_token: tokens.refresh_token ?? '',
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.access_token).toBeTruthy();
    } finally {
      await second.close();
    }
  });

  it('keeps nothing without one: a new secret, and old tokens no longer verify', async () => {
    const first = await startIdentity({ apiAudience: API });
    const { access_token: token } = await tokenRequest(first.issuer, {
      grant_type: 'client_credentials',
      client_id: first.serviceClient.clientId,
      client_secret: first.serviceClient.clientSecret,
      scope: 'cloudrx_orderservice',
    }).then((answer) => answer.body);
    await first.close();
    const second = await startIdentity({ apiAudience: API });
    try {
      expect(second.serviceClient.clientSecret).not.toBe(first.serviceClient.clientSecret);
      expect(await second.verifyAccessToken(token ?? '')).toBeNull();
    } finally {
      await second.close();
    }
  });
});
