import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, RxBatchApi } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import { parseWireJson } from '../../../shared/wire-json.js';
import { DEMO_CLINIC, startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import type { Core } from '../app-core.js';
import { exportText } from '../testing/export-text.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import {
  HL7_PROFILE,
  eighteenDigitDmd,
  hl7File,
  templateCsv,
  uniqueOrder,
  withField,
} from './testing/staging-fixtures.js';

// Import, review, fix, accept and send, through the contract (direct transport, as every front end calls it),
// with the real outbox sending to a real sandbox service.
describe('staging through the contract, sent by the outbox to the sandbox', () => {
  let sandbox: RunningSandbox;
  let core: Core;
  let api: RxBatchApi;
  let testCore: TestCore;
  const seen: Array<{ event: EventName; payload: unknown }> = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 60_000 });
    testCore = await openTestCore('staging', {
      outboxTuning: { baseDelayMs: 20, maxDelayMs: 200, reconcileDelayMs: 20 },
    });
    ({ core, api } = testCore);
    const { registry, signin } = core.services;
    await registry.update({
      ...registry.get(LOCAL_SANDBOX_ID),
      apiBaseUrl: sandbox.apiUrl,
      issuer: sandbox.issuer,
      clientId: sandbox.serviceClient.clientId,
      grant: 'client_credentials',
    });
    expect(await signin.clientCredentials(LOCAL_SANDBOX_ID, sandbox.serviceClient.clientSecret)).toEqual({ ok: true });
    core.events.subscribeAll((event, payload) => seen.push({ event, payload }));
  });

  afterAll(async () => {
    await testCore.close();
    await sandbox.close();
  });

  function file(name: string, content: string): string {
    const path = join(testCore.dir, name);
    writeFileSync(path, content);
    return path;
  }

  async function sendAll(): Promise<void> {
    const result = await core.services.outbox.runUntilIdle(LOCAL_SANDBOX_ID, { stopWhenBlocked: true });
    expect(result.outcome).toBe('idle');
  }

  const atSandbox = (clinicOrderId: string) => sandbox.listOrders().filter((o) => o.clinicOrderId === clinicOrderId);

  it('imports a CSV, fixes the invalid order, accepts, and the outbox creates each order exactly once', async () => {
    const orders = [
      uniqueOrder({ dmdCode: eighteenDigitDmd(11) }),
      withField(uniqueOrder(), 'customer.dateOfBirth', '2099-01-01'),
      uniqueOrder(),
    ];
    const imported = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      path: file('march.csv', templateCsv(orders)),
      importId: 'march',
    });
    expect(imported).toMatchObject({ status: 'staged', orders: 3, valid: 2, invalid: 1 });
    if (imported.status !== 'staged') return;
    expect(
      seen.some((e) => e.event === 'import.progress' && (e.payload as { importId: string }).importId === 'march'),
    ).toBe(true);

    const review = await api.call('batches.get', { batchId: imported.batchId, onlyProblems: true });
    expect(review.total).toBe(1);
    const [future] = review.orders;
    expect(future!.problems).toEqual([
      expect.objectContaining({ file: 'march.csv', row: 3, field: 'customer.dateOfBirth', code: 'dateOfBirth.future' }),
    ]);
    const fixed = await api.call('batches.editOrder', {
      stagedOrderId: future!.id,
      edits: [{ path: 'customer.dateOfBirth', value: '1990-02-03' }],
    });
    expect(fixed.valid).toBe(true);

    const accepted = await api.call('batches.accept', { batchId: imported.batchId });
    expect(accepted).toMatchObject({ accepted: 3, staying: 0, route: 'v1' });
    const list = await api.call('batches.list', { environmentId: LOCAL_SANDBOX_ID });
    expect(list.find((b) => b.id === imported.batchId)?.counts).toMatchObject({ accepted: 3, staged: 0 });
    expect(seen.some((e) => e.event === 'batches.changed')).toBe(true);

    await sendAll();
    for (const order of orders) expect(atSandbox(order.prescription.clinicOrderId)).toHaveLength(1);
    const [first] = atSandbox(orders[0]!.prescription.clinicOrderId);
    expect(first!.rawBody).toContain(`"dmdCode":${eighteenDigitDmd(11)}`);
    const edited = atSandbox(orders[1]!.prescription.clinicOrderId)[0]!;
    expect((parseWireJson(edited.rawBody) as { customer: { dateOfBirth: string } }).customer.dateOfBirth).toBe(
      '1990-02-03',
    );
    const page = await api.call('batches.get', { batchId: imported.batchId });
    for (const staged of page.orders) {
      const detail = await api.call('orders.get', { orderId: staged.orderId! });
      expect(detail.order.state).toBe('created');
      // What was reviewed is what was sent.
      expect(atSandbox(staged.clinicOrderId!)[0]!.rawBody).toBe(staged.request);
    }
  });

  it('sends the v2 route with the environment’s integer codes to a clinic the service knows', async () => {
    const order = withField(
      withField(uniqueOrder({ clinicCode: DEMO_CLINIC.clinicCode }), 'prescription.repeatsAllowed', 1),
      'prescription.courierCode',
      'DPD',
    );
    const imported = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'v2.csv', content: templateCsv([order]) },
      route: 'v2',
    });
    expect(imported).toMatchObject({ status: 'staged', valid: 1 });
    if (imported.status !== 'staged') return;
    await api.call('batches.accept', { batchId: imported.batchId });
    await sendAll();
    const [stored] = atSandbox(order.prescription.clinicOrderId);
    expect(stored!.route).toBe('create-v2');
    const body = parseWireJson(stored!.rawBody) as {
      customer: { title: unknown };
      prescription: { paymentType: unknown; courierCode: unknown };
      prescribedItems: Array<{ allowedRepeats: unknown }>;
    };
    expect(body.customer.title).toBe(4); // Ms
    expect(body.prescription).toMatchObject({ paymentType: 1, courierCode: 3 }); // Account, DPD
    expect(body.prescribedItems[0]!.allowedRepeats).toBe(1);
  });

  it('forwards the original HL7 message on the HL7 route; the sandbox stores it as sent', async () => {
    const saved = await api.call('profiles.save', { profile: HL7_PROFILE });
    expect(saved).toMatchObject({ name: 'hl7-clinic' });
    expect((await api.call('profiles.list', {})).map((p) => p.name)).toContain('hl7-clinic');
    const orders = [uniqueOrder(), uniqueOrder()];
    const text = hl7File(orders);
    const imported = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      path: file('orders.hl7', text),
      profile: 'hl7-clinic',
      route: 'hl7',
    });
    expect(imported).toMatchObject({ status: 'staged', orders: 2, valid: 2, summary: { messageTypes: ['RDE^O11'] } });
    if (imported.status !== 'staged') return;
    const review = await api.call('batches.get', { batchId: imported.batchId });
    expect(review.orders[0]!.provenance['prescribedItems.0.quantity']).toMatchObject({ kind: 'hl7', path: 'RXE-10.1' });
    await api.call('batches.accept', { batchId: imported.batchId });
    await sendAll();
    const messages = text.replace(/\r$/, '').split(/\r(?=MSH)/);
    orders.forEach((order, index) => {
      const stored = atSandbox(order.prescription.clinicOrderId);
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ route: 'hl7', rawBody: messages[index] });
    });
  });

  it('refuses bad requests with the reason, and serves the template, and the exports as downloads', async () => {
    await expect(
      api.call('import.file', { environmentId: LOCAL_SANDBOX_ID, path: join(testCore.dir, 'nowhere.csv') }),
    ).rejects.toThrow(/nowhere\.csv: not found/);
    await expect(
      api.call('import.file', {
        environmentId: LOCAL_SANDBOX_ID,
        path: file('x.csv', 'a'),
        upload: { name: 'x.csv', content: 'a' },
      }),
    ).rejects.toBeInstanceOf(ContractError);
    await expect(api.call('batches.get', { batchId: 999_999 })).rejects.toThrow('there is no batch 999999');
    await expect(
      api.call('import.file', { environmentId: LOCAL_SANDBOX_ID, path: file('x.csv', 'a'), profile: 'missing' }),
    ).rejects.toThrow('there is no mapping profile "missing"');
    expect(await api.call('import.cancel', { importId: 'not-running' })).toEqual({ cancelled: false });

    const example = await api.call('template.example', {});
    expect(example.fileName).toMatch(/\.csv$/);
    const refused = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'example.csv', content: example.text },
    });
    expect(refused).toMatchObject({ status: 'staged', valid: 1 });

    const binary = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      path: file('workbook.xlsx', 'PK\u0003\u0004 not a csv'),
    });
    expect(binary).toMatchObject({ status: 'refused', problems: [expect.objectContaining({ code: 'file.binary' })] });

    const bad = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'bad.csv', content: templateCsv([withField(uniqueOrder(), 'customer.email', 'not-an-email')]) },
    });
    if (bad.status !== 'staged') throw new Error('expected a staged batch');
    const errors = await exportText(api, 'batches.exportErrors', { batchId: bad.batchId });
    expect(errors).toMatchObject({ orders: 1, rows: 1, fileName: 'bad-errors.csv', bom: true });
    expect(errors.text.split('\r\n')[1]).toMatch(/,"Email 'not-an-email' .*"$/);
    const template = await exportText(api, 'batches.exportTemplate', { batchId: bad.batchId });
    expect(template).toMatchObject({ orders: 1, fileName: 'bad-template.csv' });
    expect(template.text).toContain('not-an-email');
  });
});
