import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RxBatchApi } from '../../shared/contract.js';
import { openTestCore, type TestCore } from './testing/test-core.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { hl7File, templateCsv, uniqueOrder } from './staging/testing/staging-fixtures.js';
import { exportLogText } from './testing/export-text.js';

// "Show source" reveals patient data from the original file, so every viewing is in the audit log as
// `order.source.viewed`: the order, its environment and the front end it was viewed through, and nothing of the
// patient or the source text. A core as browser mode builds it; real SQLite in a temp directory.
describe('viewing an order’s source is audited', () => {
  let testCore: TestCore;
  let api: RxBatchApi;

  /** Every patient field of the orders imported here, as they appear in the source text. */
  const PATIENT = ['Wollstonecraft', 'Mariana', '1975-04-02', '07700900999', 'mariana@example.test', 'LS1 4AP'];

  function patientOrder() {
    const order = uniqueOrder({}, 'SRC');
    order.customer = {
      ...order.customer,
      firstName: 'Mariana',
      surname: 'Wollstonecraft',
      dateOfBirth: '1975-04-02',
      telephone: '07700900999',
      email: 'mariana@example.test',
    };
    return order;
  }

  async function importAndAccept(name: string, content: string, route?: 'hl7'): Promise<number[]> {
    const imported = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name, content },
      ...(route ? { route } : {}),
    });
    if (imported.status !== 'staged') throw new Error(`${name} was not staged: ${JSON.stringify(imported)}`);
    await api.call('batches.accept', { batchId: imported.batchId });
    const page = await api.call('batches.get', { batchId: imported.batchId });
    return page.orders.map((order) => order.orderId!);
  }

  const viewings = async (orderId?: number) =>
    (await api.call('log.list', { action: 'order.source.viewed', ...(orderId ? { orderId } : {}) })).entries;

  beforeAll(async () => {
    testCore = await openTestCore('source-audit', { transport: 'browser' });
    ({ api } = testCore);
  });

  afterAll(async () => {
    await testCore.close();
  });

  it('records each viewing with the order, its environment and the front end, and no patient data', async () => {
    const [first, second] = await importAndAccept('patients.csv', templateCsv([patientOrder(), patientOrder()]));
    expect(await viewings()).toEqual([]);

    const source = await api.call('orders.source', { orderId: first! });
    // The source does hold the patient (that is why viewing it is recorded).
    expect(JSON.stringify(source)).toContain('Wollstonecraft');
    await api.call('orders.source', { orderId: first! });

    const entries = await viewings(first);
    expect(entries).toHaveLength(2);
    const detail = await api.call('orders.get', { orderId: first! });
    for (const entry of entries) {
      expect(entry).toMatchObject({
        actor: 'user',
        action: 'order.source.viewed',
        environmentId: LOCAL_SANDBOX_ID,
        orderId: first,
        batchId: detail.order.batchId,
        clinicCode: detail.order.clinicCode,
        clinicOrderId: detail.order.clinicOrderId,
        details: { via: 'browser', fileKind: 'csv' },
      });
    }
    // Not viewed: not recorded.
    expect(await viewings(second)).toEqual([]);
  });

  it('records an HL7 message viewed too', async () => {
    const [orderId] = await importAndAccept('patients.hl7', hl7File([patientOrder()]), 'hl7');
    await api.call('orders.source', { orderId: orderId! });
    expect((await viewings(orderId)).map((entry) => entry.details)).toEqual([{ via: 'browser', fileKind: 'hl7' }]);
  });

  it('records nothing when there is nothing to show', async () => {
    const before = (await viewings()).length;
    await expect(api.call('orders.source', { orderId: 987_654 })).rejects.toThrow('there is no order 987654');
    expect(await viewings()).toHaveLength(before);
  });

  it('keeps every patient field and the source text out of the log, even unmasked', async () => {
    const viewed = await viewings();
    expect(viewed.length).toBeGreaterThanOrEqual(3);
    const log = await exportLogText(api, { format: 'jsonl', unmask: true });
    const lines = log.text.split('\n').filter((line) => line.includes('order.source.viewed'));
    expect(lines).toHaveLength(viewed.length);
    for (const field of PATIENT) expect(log.text).not.toContain(field);
    expect(log.text).not.toMatch(/PID\||Test Street|Paracetamol/);
    const chain = await api.call('log.verify', {});
    expect(chain.ok).toBe(true);
  });
});
