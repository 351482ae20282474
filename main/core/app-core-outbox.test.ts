import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventName, EventPayload, RxBatchApi } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import { completeDevicePages } from '../../sandbox/identity/device-pages-driver.js';
import { startSandbox } from '../../sandbox/index.js';
import { launchChromium } from '../../test/support/browser.js';
import { createDirectApi } from '../transport/direct-api.js';
import { createCore, type Core } from './app-core.js';
import { MemorySecretStore } from './platform/secret-store.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { silentLogger } from './platform/logger.js';
import { enqueueOrders } from './store/store.js';
import { sampleOrder } from './store/testing/store-fixtures.js';
import { exportLogText } from './testing/export-text.js';

// The outbox, tracking, cancellation, sign-in and the audit log as every transport sees them: through the
// contract over the direct transport, against the core's own local sandbox.
describe('the core: outbox, orders, sign-in and the log through the contract', () => {
  let dataDir: string;
  let core: Core;
  let api: RxBatchApi;
  let browser: Browser;
  const seen: Array<{ event: EventName; payload: unknown }> = [];
  const closeAfter: Array<() => Promise<void>> = [];

  const eventsOf = <E extends EventName>(event: E) =>
    seen.filter((e) => e.event === event).map((e) => e.payload as EventPayload<E>);

  /** Stages orders the way an accepted import leaves them, and wakes the outbox. */
  function queueOrders(count: number, state: 'queued' | 'ready' = 'queued'): number[] {
    const { store, outbox } = core.services;
    const batch = store.batches.create({
      environmentId: LOCAL_SANDBOX_ID,
      sourceFileName: 'orders.json',
      kind: 'json',
      rowCount: count,
      invalidCount: 0,
    });
    const ids = enqueueOrders(
      store,
      batch.id,
      Array.from({ length: count }, () => sampleOrder({ state })),
    );
    outbox.notify(LOCAL_SANDBOX_ID);
    return ids;
  }

  async function waitForStates(ids: number[], state: string, timeout = 15_000) {
    await vi.waitFor(
      async () => {
        for (const id of ids) expect((await api.call('orders.get', { orderId: id })).order.state).toBe(state);
      },
      { timeout, interval: 50 },
    );
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-core-outbox-'));
    [core, browser] = await Promise.all([
      createCore({
        dataDir,
        appVersion: '9.9.9',
        transport: 'direct',
        secrets: new MemorySecretStore(),
        logger: silentLogger,
        outboxTuning: { baseDelayMs: 20, maxDelayMs: 200, breakerCooldownMs: 50, reconcileDelayMs: 20 },
        pollerTuning: { minIntervalMs: 50, maxIntervalMs: 200, ratePerSecond: 100, dispatchRefreshMs: 500 },
      }),
      launchChromium(),
    ]);
    api = createDirectApi(core.handlers, core.events);
    core.events.subscribeAll((event, payload) => seen.push({ event, payload }));
  });

  afterAll(async () => {
    for (const close of closeAfter) await close();
    await core.close();
    await browser.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends queued orders, lists them with their pharmacy ids, and shows each one with its history', async () => {
    const ids = queueOrders(3);
    await waitForStates(ids, 'created');

    const page = await api.call('orders.list', { environmentId: LOCAL_SANDBOX_ID, states: ['created'], limit: 2 });
    expect(page.orders).toHaveLength(2);
    expect(page.nextAfterId).toBe(page.orders[1]!.id);
    const rest = await api.call('orders.list', { states: ['created'], afterId: page.nextAfterId!, limit: 2 });
    expect([...page.orders, ...rest.orders].map((o) => o.id)).toEqual(expect.arrayContaining(ids));
    expect(rest.nextAfterId).toBeNull();

    const detail = await api.call('orders.get', { orderId: ids[0]! });
    expect(detail.order.pharmacyOrderId).toBeGreaterThan(0);
    expect(detail.items[0]).toMatchObject({ dmdCode: '42109611000001109', quantity: 1 });
    expect(detail.attempts[0]).toMatchObject({ operation: 'create', outcome: 'ok', httpStatus: 200 });
    // The create call and the state change it led to are one audit entry.
    expect(detail.audit.map((e) => e.action)).toEqual(expect.arrayContaining(['order.created']));
    expect(detail.audit.find((e) => e.action === 'order.created')?.details).toMatchObject({
      operation: 'create',
      httpStatus: 200,
    });
    // The poller picks up the first status.
    await vi.waitFor(
      async () => {
        const again = await api.call('orders.get', { orderId: ids[0]! });
        expect(again.statusHistory[0]?.status).toBe('Waiting Payment Success');
        expect(again.order.remoteStatus).toBe('Waiting Payment Success');
      },
      { timeout: 10_000 },
    );
    // Patient data never crosses the contract.
    expect(JSON.stringify(detail)).not.toMatch(/Alex|Example|1 Test Street|1980-01-15/);

    const one = await api.call('orders.list', { clinicOrderId: detail.order.clinicOrderId });
    expect(one.orders.map((o) => o.id)).toEqual([ids[0]]);
    expect(eventsOf('outbox.progress').some((p) => p.environmentId === LOCAL_SANDBOX_ID)).toBe(true);
    const progress = await api.call('outbox.progress', { environmentId: LOCAL_SANDBOX_ID });
    expect(progress.counts.created).toBeGreaterThanOrEqual(3);
  });

  it('cancels: a created order goes through cancel_requested and cancel_sent to cancelled; an unsent one is withdrawn', async () => {
    const [created] = queueOrders(1);
    await waitForStates([created!], 'created');
    const [staged] = queueOrders(1, 'ready');

    const { results } = await api.call('orders.cancel', { orderIds: [created!, staged!], reason: 'Clinic asked' });
    expect(results.map((r) => r.outcome)).toEqual(['cancel-requested', 'withdrawn']);
    expect(eventsOf('orders.changed').some((e) => e.orderIds.includes(created!))).toBe(true);

    await waitForStates([created!], 'cancelled');
    const detail = await api.call('orders.get', { orderId: created! });
    expect(detail.cancellations).toEqual([
      expect.objectContaining({ state: 'cancelled', reason: 'Clinic asked', sentAt: expect.any(String) as unknown }),
    ]);
    expect(detail.order.remoteStatus).toBe('Cancelled');
    expect(detail.attempts.map((a) => a.operation)).toContain('cancel');
    expect(detail.audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['order.cancel-requested', 'order.cancel-sent', 'order.cancel-confirmed']),
    );
    expect((await api.call('orders.get', { orderId: staged! })).order.state).toBe('withdrawn');

    const again = await api.call('orders.cancel', { orderIds: [created!], reason: 'again' });
    expect(again.results[0]).toMatchObject({ outcome: 'refused', reason: 'it is already cancelled' });
  });

  it('pauses and resumes the outbox, and retries now on request', async () => {
    const paused = await api.call('outbox.pause', { environmentId: LOCAL_SANDBOX_ID });
    expect(paused.state).toBe('paused');
    const ids = queueOrders(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await api.call('orders.get', { orderId: ids[0]! })).order.state).toBe('queued');
    const before = eventsOf('orders.changed').length;
    expect(await api.call('outbox.retryNow', { orderIds: ids })).toEqual({ count: 2 });
    // Said at once, so a list of orders that need a person reads again (the outbox's own reports may skip it).
    expect(eventsOf('orders.changed').slice(before)).toContainEqual({ environmentId: LOCAL_SANDBOX_ID, orderIds: ids });
    const resumed = await api.call('outbox.resume', { environmentId: LOCAL_SANDBOX_ID });
    expect(resumed.state).not.toBe('paused');
    await waitForStates(ids, 'created');
    const log = await api.call('log.list', { environmentId: LOCAL_SANDBOX_ID, action: 'outbox.' });
    expect(log.entries.map((e) => e.action).slice(0, 2)).toEqual(['outbox.resumed', 'outbox.paused']);
  });

  it('after a sign-out, holds orders for sign-in (one attention event), and sends them once signed in again', async () => {
    const signedOut = await api.call('signin.signOut', { environmentId: LOCAL_SANDBOX_ID });
    expect(signedOut.signedIn).toBe(false);
    const ids = queueOrders(2);
    // The state turns as the 401 comes in; the orders go back to the queue at the next commit, a moment later.
    await vi.waitFor(
      async () => {
        expect((await api.call('outbox.progress', { environmentId: LOCAL_SANDBOX_ID })).state).toBe('sign-in-required');
        for (const id of ids) expect((await api.call('orders.get', { orderId: id })).order.state).toBe('queued');
      },
      { timeout: 10_000 },
    );
    expect(eventsOf('attention').filter((a) => a.kind === 'sign-in-required')).toHaveLength(1);

    // The service account's secret is still saved (sign-out forgets tokens only), so no secret is needed here.
    expect(await api.call('signin.clientCredentials', { environmentId: LOCAL_SANDBOX_ID })).toEqual({ ok: true });
    await waitForStates(ids, 'created');
    const status = await api.call('signin.status', { environmentId: LOCAL_SANDBOX_ID });
    expect(status).toMatchObject({ signedIn: true, grant: 'client_credentials', device: null });
    expect(JSON.stringify(status)).not.toMatch(/eyJ/);
    expect(eventsOf('signin.changed').map((c) => c.state)).toEqual(expect.arrayContaining(['signed-out', 'signed-in']));
  });

  it('refuses a wrong client secret with a clear result and keeps the working sign-in', async () => {
    const result = await api.call('signin.clientCredentials', {
      environmentId: LOCAL_SANDBOX_ID,
      clientSecret: 'not-the-secret',
    });
    expect(result).toMatchObject({ ok: false, code: 'rejected' });
    expect(JSON.stringify(result)).not.toContain('not-the-secret');
    expect((await api.call('signin.status', { environmentId: LOCAL_SANDBOX_ID })).signedIn).toBe(true);
    await expect(api.call('signin.startDevice', { environmentId: LOCAL_SANDBOX_ID })).rejects.toThrow(
      /signs in with client credentials/,
    );
  });

  it('signs in with a device code: progress events, the person approves in the browser, then signed in', async () => {
    const sandbox = await startSandbox();
    closeAfter.push(() => sandbox.close());
    await core.services.registry.update({
      ...core.services.registry.get(LOCAL_SANDBOX_ID),
      id: 'device-env',
      name: 'Device sign-in',
      kind: 'remote',
      apiBaseUrl: sandbox.apiUrl,
      issuer: sandbox.issuer,
      clientId: sandbox.deviceClient.clientId,
      grant: 'device',
    });
    const started = await api.call('signin.startDevice', { environmentId: 'device-env' });
    expect(started.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(started.verificationUriComplete).toContain(started.userCode);
    expect((await api.call('signin.status', { environmentId: 'device-env' })).device).toMatchObject({
      state: 'waiting',
    });

    const context = await browser.newContext();
    try {
      await completeDevicePages(await context.newPage(), {
        url: started.verificationUriComplete!,
        username: sandbox.user.username,
        password: sandbox.user.password,
        decision: 'allow',
      });
    } finally {
      await context.close();
    }
    await vi.waitFor(
      () =>
        expect(
          eventsOf('signin.changed')
            .filter((c) => c.environmentId === 'device-env')
            .map((c) => c.state),
        ).toEqual(['waiting', 'signed-in']),
      // The core polls the identity server once a second: its next poll, not the browser, ends the wait.
      { timeout: 15_000, interval: 50 },
    );
    const status = await api.call('signin.status', { environmentId: 'device-env' });
    expect(status).toMatchObject({ signedIn: true, grant: 'device', subject: 'sandbox-admin', device: null });

    // A second sign-in cancelled before it completes ends as cancelled.
    await api.call('signin.startDevice', { environmentId: 'device-env' });
    expect(await api.call('signin.cancelDevice', { environmentId: 'device-env' })).toEqual({ cancelled: true });
    await vi.waitFor(
      () =>
        expect(
          eventsOf('signin.changed')
            .filter((c) => c.environmentId === 'device-env')
            .at(-1)?.state,
        ).toBe('cancelled'),
      { timeout: 15_000, interval: 50 },
    );
    const audit = await api.call('log.list', { environmentId: 'device-env', action: 'signin.' });
    expect(audit.entries.map((e) => e.details.outcome)).toEqual(['cancelled', 'signed-in']);
  });

  it('lists the log newest first with filters and paging, verifies it, and exports it masked unless asked', async () => {
    const first = await api.call('log.list', { action: 'order.', limit: 3 });
    expect(first.entries).toHaveLength(3);
    expect(first.entries.every((e) => e.action.startsWith('order.'))).toBe(true);
    expect(first.entries[0]!.seq).toBeGreaterThan(first.entries[2]!.seq);
    const next = await api.call('log.list', { action: 'order.', limit: 3, beforeSeq: first.nextBeforeSeq! });
    expect(next.entries[0]!.seq).toBeLessThan(first.entries[2]!.seq);

    expect(await api.call('log.verify', {})).toMatchObject({ ok: true });

    const someOrder = (await api.call('orders.list', { states: ['created'], limit: 1 })).orders[0]!;
    // By clinic order id (issue #16: through the orders' index): that order's entries, newest first.
    const ofOrder = await api.call('log.list', { clinicOrderId: someOrder.clinicOrderId });
    expect(ofOrder.entries.length).toBeGreaterThan(0);
    expect(ofOrder.entries.every((e) => e.orderId === someOrder.id)).toBe(true);
    expect(ofOrder.entries[0]!.seq).toBeGreaterThan(ofOrder.entries[ofOrder.entries.length - 1]!.seq);
    const masked = await exportLogText(api, { format: 'csv' });
    expect(masked.masked).toBe(true);
    expect(masked.count).toBeGreaterThan(10);
    expect(masked.text.split('\r\n')[0]).toMatch(/^seq,at,actor,action/);
    expect(masked.text).not.toContain(someOrder.clinicOrderId);
    expect(masked.text).toContain(someOrder.clinicOrderId.slice(-3));
    const unmasked = await exportLogText(api, { format: 'jsonl', unmask: true });
    expect(unmasked.text).toContain(someOrder.clinicOrderId);
    const exports = await api.call('log.list', { action: 'log.exported', limit: 2 });
    expect(exports.entries.map((e) => e.details.masked)).toEqual([false, true]);
  });

  it('answers unknown orders and environments with contract errors', async () => {
    // Said as the admin reads it (a `failed` error's message is the screen's summary), with what to do instead.
    const missing = api.call('orders.get', { orderId: 999_999 });
    await expect(missing).rejects.toMatchObject({ code: 'failed' });
    await expect(missing).rejects.toThrow('Rx Batch has no order 999999 here');
    await expect(api.call('outbox.progress', { environmentId: 'nowhere' })).rejects.toBeInstanceOf(ContractError);
    await expect(api.call('orders.cancel', { orderIds: [1], reason: '  ' })).rejects.toMatchObject({
      code: 'invalid-input',
    });
  });
});
