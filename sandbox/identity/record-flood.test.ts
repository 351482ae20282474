import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { STORE_FILE } from './identity-state.js';
import { startIdentity } from './index.js';
import { MAX_RECORDS_PER_MODEL, MemoryStore } from './memory-adapter.js';
import { postForm } from './test-http.js';

/**
 * Every `GET /device` makes a Session, and any web page can make the browser send thousands (an image's address):
 * they were kept without end and the whole store written after each, in the process that runs the sandbox (the
 * app's core), so each request took longer than the last (security finding 30).
 */

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const savedModels = (file: string) =>
  new Set((JSON.parse(readFileSync(file, 'utf8')) as Array<[string, unknown]>).map(([key]) => key.split(':')[0]));

it('keeps the code page’s sessions out of the saved store, and device codes still in it', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-identity-flood-'));
  const identity = await startIdentity({ apiAudience: 'http://127.0.0.1:4323/', stateDir: dir });
  try {
    for (let i = 0; i < 50; i++) {
      const page = await fetch(`${identity.issuer}/device`);
      expect(page.status).toBe(200);
      await page.arrayBuffer();
    }
    const started = await postForm(`${identity.issuer}/connect/deviceauthorization`, {
      client_id: identity.deviceClient.clientId,
      scope: 'openid cloudrx_orderservice',
    });
    expect(started.status).toBe(200);
    expect(savedModels(join(dir, STORE_FILE))).toEqual(new Set(['DeviceCode']));
  } finally {
    await identity.close();
  }
});

it('keeps at most MAX_RECORDS_PER_MODEL records of a model: expired ones go first, then the oldest', async () => {
  const store = new MemoryStore();
  const sessions = store.adapterFor('Session');
  const grants = store.adapterFor('Grant');
  await grants.upsert('kept', { accountId: 'a' }, 600);
  // Expired long enough ago to be past the store's grace time.
  await sessions.upsert('expired', { uid: 'expired' }, -3600);
  for (let i = 0; i < MAX_RECORDS_PER_MODEL + 50; i++) await sessions.upsert(`s${i}`, { uid: `s${i}` }, 600);

  expect(store.count('Session')).toBe(MAX_RECORDS_PER_MODEL);
  // The expired one made the first room, then the 50 oldest went, oldest first.
  expect(await sessions.find('s49')).toBeUndefined();
  expect(await sessions.find('s50')).toEqual({ uid: 's50' });
  expect(await sessions.find(`s${MAX_RECORDS_PER_MODEL + 49}`)).toBeDefined();
  // Other models are not touched by one model's flood; replacing a record does not count it twice.
  expect(await grants.find('kept')).toEqual({ accountId: 'a' });
  await sessions.upsert('s50', { uid: 's50', again: true }, 600);
  expect(store.count('Session')).toBe(MAX_RECORDS_PER_MODEL);
  expect(await sessions.find(`s${MAX_RECORDS_PER_MODEL + 49}`)).toBeDefined();
});
