import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_CODE_LISTS,
  DEFAULT_SENDING_PACE,
  ORDER_SERVICE_SCOPES,
  type EnvironmentProfileView,
} from '../../../shared/environment.js';
import { authSecretKeys } from '../auth/token-record.js';
import type { ConfirmQuestion } from '../desktop-handlers.js';
import { MemorySecretStore } from '../platform/secret-store.js';
import { enqueueOrders } from '../store/store.js';
import { sampleOrder } from '../store/testing/store-fixtures.js';
import { sampleCreateWithClinic } from '../../../test/support/orders.js';
import { toWireJson } from '../../../shared/wire-json.js';
import { openCore, openTestCore, type TestCore } from '../testing/test-core.js';
import { LOCAL_SANDBOX_ID } from './presets.js';

// Issue #13: environments can be removed, with what that does said first; nothing unfinished is lost silently.

const ID = 'supplier-test';

function profile(overrides: Partial<EnvironmentProfileView> = {}): EnvironmentProfileView {
  return {
    id: ID,
    name: 'Supplier test',
    kind: 'remote',
    apiBaseUrl: 'https://orders.supplier.example/',
    issuer: 'https://identity.supplier.example',
    clientId: 'supplier-client',
    grant: 'client_credentials',
    scopes: [...ORDER_SERVICE_SCOPES],
    createWithClinicVersion: 'v1',
    requestTimeoutMs: 30_000,
    codeLists: DEFAULT_CODE_LISTS,
    ...DEFAULT_SENDING_PACE,
    ...overrides,
  };
}

describe('removing an environment', () => {
  let t: TestCore;
  let secrets: MemorySecretStore;

  beforeEach(async () => {
    secrets = new MemorySecretStore();
    t = await openTestCore('env-removal', { secrets });
    await t.api.call('environments.save', { environment: profile(), create: true });
  });
  afterEach(async () => {
    await t.close();
  });

  function addOrders(states: Array<'queued' | 'held' | 'ready'>, prefix: string): number[] {
    const { store } = t.core.services;
    const batch = store.batches.create({
      environmentId: ID,
      sourceFileName: 'orders.json',
      kind: 'json',
      rowCount: states.length,
      invalidCount: 0,
    });
    return enqueueOrders(
      store,
      batch.id,
      states.map((state, index) => sampleOrder({ clinicOrderId: `${prefix}-${index}`, state })),
    );
  }

  function move(orderId: number, from: 'queued', to: 'sending' | 'in_doubt' | 'created', pharmacyOrderId?: number) {
    const moved = t.core.services.store.orders.transition(
      orderId,
      [from],
      to,
      pharmacyOrderId ? { pharmacyOrderId } : {},
      { actor: 'system', action: 'order.test-moved' },
    );
    expect(moved).toBe(true);
  }

  it('is refused while orders wait, are sent or in doubt, naming each count, and nothing changes', async () => {
    const [a, b, c] = addOrders(['queued', 'queued', 'queued', 'queued', 'held'], 'wait');
    move(a!, 'queued', 'sending');
    move(b!, 'queued', 'in_doubt');
    move(c!, 'queued', 'in_doubt');

    const removal = await t.api.call('environments.removal', { environmentId: ID });
    expect(removal).toMatchObject({
      removable: false,
      waiting: { unsent: 2, sending: 1, inDoubt: 2, cancelsOpen: 0, stagedBatches: 0, importing: 0 },
    });
    expect(removal.message).toContain('2 orders not sent yet');
    expect(removal.message).toContain('1 order being sent');
    expect(removal.message).toContain('2 orders in doubt');

    await expect(t.api.call('environments.remove', { environmentId: ID })).rejects.toMatchObject({
      code: 'failed',
      message: removal.message,
    });
    expect((await t.api.call('environments.list', {})).map((e) => e.id)).toContain(ID);
    expect(t.core.services.store.orders.countByState(ID)).toMatchObject({ queued: 1, held: 1, in_doubt: 2 });
    expect([...t.core.services.store.audit.rows()].some((row) => row.action === 'environment.removed')).toBe(false);
  });

  it('says first what it does, then removes: sent orders keep their history, the sign-in goes, audited', async () => {
    const [sent] = addOrders(['queued'], 'sent');
    move(sent!, 'queued', 'created', 4242);
    await secrets.set(authSecretKeys(ID).clientSecret, 'kept-secret');

    const removal = await t.api.call('environments.removal', { environmentId: ID });
    expect(removal).toMatchObject({ removable: true, tracked: 1, kept: 1 });
    expect(removal.message).toContain('Its 1 order is kept with its history and audit entries: the Log still lists it');
    expect(removal.message).toContain('will no longer be checked');

    const changed: string[][] = [];
    t.core.events.subscribe('environments.changed', (list) => changed.push(list.map((e) => e.id)));
    expect(await t.api.call('environments.remove', { environmentId: ID })).toEqual({ removed: removal });

    expect((await t.api.call('environments.list', {})).map((e) => e.id)).not.toContain(ID);
    expect(changed.at(-1)).not.toContain(ID);
    expect(await secrets.get(authSecretKeys(ID).clientSecret)).toBeNull();
    // The order and its history stay, found in Orders across environments.
    const all = await t.api.call('orders.list', {});
    expect(all.orders.map((order) => order.id)).toContain(sent);
    const detail = await t.api.call('orders.get', { orderId: sent! });
    expect(detail.order).toMatchObject({ environmentId: ID, state: 'created', pharmacyOrderId: 4242 });
    const entry = [...t.core.services.store.audit.rows()].find((row) => row.action === 'environment.removed');
    expect(entry).toMatchObject({ actor: 'user', environmentId: ID });
    expect(JSON.parse(entry!.detailsJson)).toEqual({ apiOrigin: 'https://orders.supplier.example', orderCount: 1 });
    // Calls on it now say it does not exist.
    await expect(t.api.call('environments.removal', { environmentId: ID })).rejects.toMatchObject({
      code: 'invalid-input',
    });
  });

  it('is refused while a batch waits in Preview or a file is being imported into it', async () => {
    const { store } = t.core.services;
    store.batches.beginImport({ environmentId: ID, sourceFileName: 'monday.csv' });
    const importing = await t.api.call('environments.removal', { environmentId: ID });
    expect(importing).toMatchObject({ removable: false, waiting: { importing: 1 } });
    expect(importing.message).toContain('1 file being imported');

    const staged = await t.api.call('import.file', {
      environmentId: ID,
      upload: { name: 'orders.json', content: toWireJson([sampleCreateWithClinic({ clinicOrderId: 'PREVIEW-1' })]) },
    });
    expect(staged).toMatchObject({ status: 'staged' });
    const waiting = await t.api.call('environments.removal', { environmentId: ID });
    expect(waiting.waiting.stagedBatches).toBe(1);
    expect(waiting.message).toContain('1 batch in Preview with orders not accepted or discarded');
  });

  it('is refused for the local sandbox', async () => {
    const removal = await t.api.call('environments.removal', { environmentId: LOCAL_SANDBOX_ID });
    expect(removal.removable).toBe(false);
    await expect(t.api.call('environments.remove', { environmentId: LOCAL_SANDBOX_ID })).rejects.toMatchObject({
      code: 'failed',
    });
  });

  it('a removed preset stays removed after a restart; adding the id again brings it back with its orders', async () => {
    await t.api.call('environments.remove', { environmentId: 'cloudrx-sandbox' });
    const [sent] = addOrders(['queued'], 'back');
    move(sent!, 'queued', 'created', 77);
    await t.api.call('environments.remove', { environmentId: ID });
    await t.core.close();

    const again = await openCore(t.dataDir, { secrets });
    try {
      const ids = (await again.api.call('environments.list', {})).map((e) => e.id);
      expect(ids).not.toContain('cloudrx-sandbox');
      expect(ids).not.toContain(ID);
      await again.api.call('environments.save', { environment: profile(), create: true });
      const back = await again.api.call('orders.list', { environmentId: ID });
      expect(back.orders.map((order) => order.id)).toEqual([sent]);
    } finally {
      await again.core.close();
    }
  });
});

describe('removing in the desktop app', () => {
  it('asks in a native dialog with what it does; a refusal keeps the environment', async () => {
    const asked: ConfirmQuestion[] = [];
    let answer = false;
    // A variable, not a literal: the integration has more than removal uses (other tests' business).
    const desktop = {
      chooseFiles: () => Promise.resolve({ paths: [], skipped: [] }),
      takeImportRequests: () => ({ paths: [], skipped: [] }),
      openDataFolder: () => Promise.resolve({}),
      chooseSavePath: () => Promise.resolve(null),
      // Adding the environment is asked too (yes); its removal is answered `answer`.
      confirm: (question: ConfirmQuestion) => {
        if (question.kind !== 'removal') return Promise.resolve(question.kind !== 'binding-change');
        asked.push(question);
        return Promise.resolve(answer);
      },
    };
    const t = await openTestCore('env-removal-desktop', { desktop });
    try {
      await t.api.call('environments.save', { environment: profile(), create: true });
      await expect(t.api.call('environments.remove', { environmentId: ID })).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Supplier test was not removed.',
      });
      expect(asked).toEqual([
        {
          kind: 'removal',
          title: 'Remove this environment?',
          message: 'Remove "Supplier test"?',
          detail: expect.stringContaining('Removing Supplier test signs it out') as string,
          confirmLabel: 'Remove environment',
        },
      ]);
      expect((await t.api.call('environments.list', {})).map((e) => e.id)).toContain(ID);
      answer = true;
      await t.api.call('environments.remove', { environmentId: ID });
      expect((await t.api.call('environments.list', {})).map((e) => e.id)).not.toContain(ID);
    } finally {
      await t.close();
    }
  });
});

describe('the chosen environment', () => {
  it('is remembered across a restart, and forgotten when it is removed', async () => {
    const secrets = new MemorySecretStore();
    const t = await openTestCore('env-chosen', { secrets });
    try {
      expect(await t.api.call('environments.chosen', {})).toEqual({ environmentId: null });
      await t.api.call('environments.save', { environment: profile(), create: true });
      await t.api.call('environments.choose', { environmentId: 'cloudrx-sandbox' });
      await t.api.call('environments.choose', { environmentId: ID });
      await t.core.close();

      const again = await openCore(t.dataDir, { secrets });
      try {
        expect(await again.api.call('environments.chosen', {})).toEqual({ environmentId: ID });
        await again.api.call('environments.remove', { environmentId: ID });
        expect(await again.api.call('environments.chosen', {})).toEqual({ environmentId: null });
        await expect(again.api.call('environments.choose', { environmentId: ID })).rejects.toMatchObject({
          code: 'invalid-input',
        });
      } finally {
        await again.core.close();
      }
    } finally {
      await t.close();
    }
  });
});
