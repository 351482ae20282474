import type { BrowserContext } from '@playwright/test';
import { courierListSchema, type CourierOption } from '../../../shared/couriers.js';
import type { EnvironmentView } from '../../../shared/environment.js';
import { productListSchema, type Product } from '../../../shared/products.js';
import { parseWireJson } from '../../../shared/wire-json.js';
import { DEVICE_CLIENT_ID } from '../../../sandbox/identity/provider-config.js';
import type { StoredOrder } from '../../../sandbox/index.js';

/**
 * The running local sandbox, over HTTP, as a second and independent client: the expected values in the tests
 * come from here, not from constants that could drift from the sandbox's catalogue; faults are switched here.
 */

async function json(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}: ${text.slice(0, 300)}`);
  return parseWireJson(text);
}

function postForm(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}

/** Anonymous product search, straight from the sandbox; dm+d codes stay digit strings (lossless parse). */
export async function searchSandboxProducts(environment: EnvironmentView, searchTerm: string): Promise<Product[]> {
  const url = new URL('api/v2/Product/search', environment.apiBaseUrl);
  url.searchParams.set('searchTerm', searchTerm);
  return productListSchema.parse(await json(await fetch(url)));
}

/**
 * The courier list needs a token. This signs in with the sandbox's device client the way a person would: the
 * verification page in the browser, the account printed on the sandbox's login page, then Allow.
 */
export async function sandboxCourierList(
  context: BrowserContext,
  environment: EnvironmentView,
): Promise<CourierOption[]> {
  const discovery = (await json(await fetch(`${environment.issuer}/.well-known/openid-configuration`))) as {
    device_authorization_endpoint: string;
    token_endpoint: string;
  };
  const device = (await json(
    await postForm(discovery.device_authorization_endpoint, {
      client_id: DEVICE_CLIENT_ID,
      scope: 'cloudrx_courierservice',
    }),
  )) as { device_code: string; verification_uri_complete: string };

  const page = await context.newPage();
  try {
    await page.goto(device.verification_uri_complete);
    await page.getByRole('button', { name: 'Continue' }).click();
    const hint = await page.getByText(/Local sandbox account:/).textContent();
    const [, username = '', password = ''] = /username "([^"]+)", password "([^"]+)"/.exec(hint ?? '') ?? [];
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
  } finally {
    await page.close();
  }

  const token = (await json(
    await postForm(discovery.token_endpoint, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: device.device_code,
      client_id: DEVICE_CLIENT_ID,
    }),
  )) as { access_token: string };
  const response = await fetch(new URL('api/v2/CourierService/price-check', environment.apiBaseUrl), {
    headers: { authorization: `Bearer ${token.access_token}` },
  });
  return courierListSchema.parse(await json(response));
}

/**
 * The admin token of each running local sandbox, by its API address: `localSandbox(app)` (workspace.ts) notes the
 * app's here, so the helpers below keep taking the environment alone.
 */
const adminTokens = new Map<string, string>();

export function rememberSandboxAdminToken(apiBaseUrl: string, token: string): void {
  adminTokens.set(apiBaseUrl, token);
}

/** A request to the sandbox's admin routes: they need the launch's token, and JSON for a body. */
function adminRequest(environment: EnvironmentView, path: string, init: RequestInit = {}): Promise<Response> {
  const token = adminTokens.get(environment.apiBaseUrl);
  if (!token) throw new Error(`no admin token for the sandbox at ${environment.apiBaseUrl}: use localSandbox(app)`);
  return fetch(new URL(path, environment.apiBaseUrl), {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
  });
}

/** Switches the sandbox's faults (`POST /__sandbox/faults`, with the admin token). */
export async function setSandboxFaults(environment: EnvironmentView, patch: Record<string, number | boolean>) {
  await json(await adminRequest(environment, '__sandbox/faults', { method: 'POST', body: JSON.stringify(patch) }));
}

/** Every order the sandbox stores (`GET /__sandbox/orders`), to count what arrived at the service. */
export async function sandboxOrders(environment: EnvironmentView): Promise<StoredOrder[]> {
  return (await json(await adminRequest(environment, '__sandbox/orders'))) as StoredOrder[];
}
