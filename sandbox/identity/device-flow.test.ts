import type { Browser, Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/support/browser.js';
import { completeDevicePages, enterUserCode, signIn } from './device-pages-driver.js';
import { startIdentity, type RunningIdentity } from './index.js';
import { jwtPart, postForm, tokenRequest } from './test-http.js';

const API = 'http://127.0.0.1:4321/';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const SCOPE = 'openid offline_access cloudrx_orderservice cloudrx_productservice';

let identity: RunningIdentity;
let browser: Browser;

beforeAll(async () => {
  [identity, browser] = await Promise.all([startIdentity({ apiAudience: API }), launchChromium()]);
});
afterAll(async () => {
  await Promise.all([identity.close(), browser.close()]);
});

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

async function authorizeDevice(on: RunningIdentity = identity): Promise<DeviceAuthorization> {
  const res = await postForm(`${on.issuer}/connect/deviceauthorization`, {
    client_id: on.deviceClient.clientId,
    scope: SCOPE,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as DeviceAuthorization;
}

function poll(deviceCode: string, on: RunningIdentity = identity) {
  return tokenRequest(on.issuer, {
    grant_type: DEVICE_GRANT,
    client_id: on.deviceClient.clientId,
    device_code: deviceCode,
  });
}

async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext();
  try {
    return await run(await context.newPage());
  } finally {
    await context.close();
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('device authorization grant (RFC 8628)', () => {
  it('hands out codes, then says pending, and slow_down to a device that polls too fast', async () => {
    const auth = await authorizeDevice();
    expect(auth).toMatchObject({
      verification_uri: `${identity.issuer}/device`,
      expires_in: 600,
      interval: 1,
    });
    expect(auth.user_code).toMatch(/^[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}$/);
    expect(auth.verification_uri_complete).toBe(`${identity.issuer}/device?user_code=${auth.user_code}`);

    const first = await poll(auth.device_code);
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('authorization_pending');
    const tooSoon = await poll(auth.device_code);
    expect(tooSoon.body.error).toBe('slow_down');
  });

  it('signs a person in through the pages: code, check, login, allow; tokens refresh and rotate', async () => {
    const auth = await authorizeDevice();
    await withPage(async (page) => {
      await page.goto(auth.verification_uri);
      await enterUserCode(page, auth.user_code.toLowerCase().replace('-', ''));
      await page.getByRole('heading', { name: 'Check the code' }).waitFor();
      expect(await page.getByLabel('Code').textContent()).toBe(auth.user_code);
      await page.getByRole('button', { name: 'Continue' }).click();

      await signIn(page, identity.user.username, 'wrong password');
      expect(await page.getByRole('alert').textContent()).toBe('Wrong username or password.');
      await signIn(page, identity.user.username, identity.user.password);

      await page.getByRole('heading', { name: 'Allow Rx Batch?' }).waitFor();
      expect(await page.getByRole('listitem').allTextContents()).toEqual(
        expect.arrayContaining([
          'Send prescription orders and read their status',
          'Look up products, stock and prices',
        ]),
      );
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
    });

    const { status, body } = await poll(auth.device_code);
    expect(status).toBe(200);
    const verified = await identity.verifyAccessToken(body.access_token ?? '');
    expect(verified).toEqual({
      clientId: identity.deviceClient.clientId,
      scopes: ['cloudrx_orderservice', 'cloudrx_productservice'],
      subject: 'sandbox-admin',
    });
    expect(jwtPart(body.id_token ?? '', 1)).toMatchObject({
      sub: 'sandbox-admin',
      aud: identity.deviceClient.clientId,
    });
    expect(await identity.verifyAccessToken(body.id_token ?? '')).toBeNull();
    expect(body.refresh_token).toBeTruthy();

    const refreshed = await tokenRequest(identity.issuer, {
      grant_type: 'refresh_token',
      client_id: identity.deviceClient.clientId,
      refresh_token: body.refresh_token ?? '',
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(body.access_token);
    expect(refreshed.body.refresh_token).not.toBe(body.refresh_token);
    expect((await identity.verifyAccessToken(refreshed.body.access_token ?? ''))?.subject).toBe('sandbox-admin');

    await identity.revokeAllRefreshTokens();
    const afterRevoke = await tokenRequest(identity.issuer, {
      grant_type: 'refresh_token',
      client_id: identity.deviceClient.clientId,
      refresh_token: refreshed.body.refresh_token ?? '',
    });
    expect(afterRevoke.status).toBe(400);
    expect(afterRevoke.body.error).toBe('invalid_grant');
  });

  it('ends the poll with access_denied when the person denies', async () => {
    const auth = await authorizeDevice();
    await withPage((page) =>
      completeDevicePages(page, {
        url: auth.verification_uri_complete,
        username: identity.user.username,
        password: identity.user.password,
        decision: 'deny',
      }),
    );
    const { status, body } = await poll(auth.device_code);
    expect(status).toBe(400);
    expect(body.error).toBe('access_denied');
  });

  it('ends the poll with access_denied when the person cancels at the code check', async () => {
    const auth = await authorizeDevice();
    await withPage(async (page) => {
      await page.goto(auth.verification_uri_complete);
      await page.getByRole('button', { name: 'Cancel' }).click();
      expect(await page.getByRole('status').textContent()).toContain('Sign-in was cancelled');
    });
    expect((await poll(auth.device_code)).body.error).toBe('access_denied');
  });

  it('says so on the page when the code is unknown', async () => {
    await withPage(async (page) => {
      await page.goto(`${identity.issuer}/device`);
      await enterUserCode(page, 'BCDF-GHJK');
      expect(await page.getByRole('alert').textContent()).toContain('That code was not found');
      await page.getByLabel('Code shown in Rx Batch').waitFor();
    });
  });

  it('answers expired_token once the device code has expired', async () => {
    const shortLived = await startIdentity({ apiAudience: API, deviceCodeTtlSeconds: 1 });
    try {
      const auth = await authorizeDevice(shortLived);
      expect(auth.expires_in).toBe(1);
      await wait(1_100);
      const { status, body } = await poll(auth.device_code, shortLived);
      expect(status).toBe(400);
      expect(body.error).toBe('expired_token');
    } finally {
      await shortLived.close();
    }
  });
});
