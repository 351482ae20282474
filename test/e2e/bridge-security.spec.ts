import { POLICY_VIOLATION } from '../../shared/transport-protocol.js';
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

test('a real page on another origin cannot open the bridge socket, even knowing the secret', async ({ app, page }) => {
  // http://localhost:<port> is a different origin from http://127.0.0.1:<port>, and the bridge serves it.
  await page.goto(`http://localhost:${app.port}/`);
  const outcome = await page.evaluate(
    ({ port, secret }) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}/rpc`);
        socket.onopen = () => {
          socket.send(JSON.stringify({ secret }));
          resolve('opened');
        };
        socket.onclose = (event) => resolve(`closed ${event.code}`);
      }),
    { port: app.port, secret: app.secret },
  );
  expect(outcome).toBe('closed 1006');
});
