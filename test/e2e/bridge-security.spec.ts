import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { POLICY_VIOLATION } from '../../shared/transport-protocol.js';
import type { BrowserModeApp } from './support/browser-mode.js';
import { expect, test } from './fixtures.js';
import { probeBridge } from './support/bridge-client.js';

test('the bridge answers a socket that presents the secret from its own origin', async ({ app }) => {
  expect(await probeBridge(app, { secret: app.secret })).toMatchObject({
    refused: false,
    answer: { id: 1, ok: true, value: { name: 'Rx Batch', transport: 'browser' } },
  });
});

test('the bridge refuses a socket without the secret, or with a wrong one', async ({ app }) => {
  expect(await probeBridge(app, {})).toEqual({ refused: 'close', code: POLICY_VIOLATION });
  // The last character changed (base64url's last character is "A" one time in sixteen: never keep it).
  const wrong = `${app.secret.slice(0, -1)}${app.secret.endsWith('A') ? 'B' : 'A'}`;
  expect(wrong).not.toBe(app.secret);
  expect(await probeBridge(app, { secret: wrong })).toEqual({
    refused: 'close',
    code: POLICY_VIOLATION,
  });
});

test('the bridge refuses a socket from a foreign Origin, even with the secret', async ({ app }) => {
  const foreign = await probeBridge(app, { secret: app.secret, headers: { Origin: 'http://evil.example' } });
  expect(foreign).toEqual({ refused: 'http', status: 403 });
});

test('the bridge refuses a socket whose Host is not its own (DNS rebinding)', async ({ app }) => {
  const rebound = await probeBridge(app, {
    secret: app.secret,
    headers: { Origin: app.origin, Host: `rebind.example:${app.port}` },
  });
  expect(rebound).toEqual({ refused: 'http', status: 403 });
});

/** From a page in Chromium, tries to open the bridge's socket and say hello; says how that ended. */
function tryBridgeSocket(page: Page, app: BrowserModeApp): Promise<string> {
  return page.evaluate(
    ({ port, secret }) =>
      new Promise<string>((resolve) => {
        setTimeout(() => resolve('no connection'), 5_000);
        try {
          const socket = new WebSocket(`ws://127.0.0.1:${port}/rpc`);
          socket.onopen = () => {
            socket.send(JSON.stringify({ hello: secret.slice(0, 43).padEnd(43, 'A') }));
            resolve('opened');
          };
          socket.onclose = (event) => resolve(`closed ${event.code}`);
        } catch (error) {
          resolve(`refused by the page: ${String(error)}`);
        }
      }),
    { port: app.port, secret: app.secret },
  );
}

test('a real page on another origin cannot open the bridge socket, even knowing the secret', async ({ app, page }) => {
  // Another site: a page served from another port is another origin, with no policy of its own to stop it.
  const elsewhere = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>Elsewhere</title>');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  try {
    await page.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`);
    // The bridge refuses the upgrade (foreign Origin): the socket never opens.
    expect(await tryBridgeSocket(page, app)).toBe('closed 1006');
  } finally {
    await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
  }
});

test("the app's page under another origin is stopped by its own policy before it connects", async ({ app, page }) => {
  // http://localhost:<port> is a different origin from http://127.0.0.1:<port>, and the bridge serves it.
  await page.goto(`http://localhost:${app.port}/`);
  expect(await tryBridgeSocket(page, app)).not.toBe('opened');
});
