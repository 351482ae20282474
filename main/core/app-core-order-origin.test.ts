import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, RxBatchApi } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import { toWireJson } from '../../shared/wire-json.js';
import type { Core } from './app-core.js';
import { openTestCore, type TestCore } from './testing/test-core.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { hl7File, templateCsv, uniqueOrder } from './staging/testing/staging-fixtures.js';
import { enqueueOrders } from './store/store.js';
import { sampleOrder } from './store/testing/store-fixtures.js';
import { exportLogText } from './testing/export-text.js';

// Issue #6's Orders screen through the contract (direct transport, as every front end calls it): where each order
// came from (file, CSV lines, HL7 message and control id, the source text on request) and the patient-surname
// search, which finds orders without the surname ever coming back. Real SQLite in a temp directory; nothing is
// sent, so no service is needed.
describe('orders: their origin and the patient-surname search, through the contract', () => {
  let testCore: TestCore;
  let core: Core;
  let api: RxBatchApi;

  beforeAll(async () => {
    testCore = await openTestCore('order-origin');
    ({ core, api } = testCore);
  });

  afterAll(async () => {
    await testCore.close();
  });

  /** Imports an upload, accepts it, and returns the outbox ids of its orders in file order. */
  async function importAndAccept(
    name: string,
    content: string,
    route?: CallInput<'import.file'>['route'],
  ): Promise<{ batchId: number; orderIds: number[] }> {
    const imported = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name, content },
      ...(route ? { route } : {}),
    });
    if (imported.status !== 'staged') throw new Error(`${name} was not staged: ${JSON.stringify(imported)}`);
    expect(imported.invalid).toBe(0);
    await api.call('batches.accept', { batchId: imported.batchId });
    const page = await api.call('batches.get', { batchId: imported.batchId });
    return { batchId: imported.batchId, orderIds: page.orders.map((order) => order.orderId!) };
  }

  const surnameSearch = async (patientSurname: string, extra: Partial<CallInput<'orders.list'>> = {}) =>
    (await api.call('orders.list', { patientSurname, ...extra })).orders.map((order) => order.id);

  let csv: { batchId: number; orderIds: number[]; lines: string[] };
  let hl7: { batchId: number; orderIds: number[]; text: string };

  it('a CSV order: the file and its lines in the detail; the records under the header on request', async () => {
    const twoItems = uniqueOrder({ surname: 'Brontë-Fenwick' });
    twoItems.prescribedItems.push({ ...twoItems.prescribedItems[0]!, medication: 'Ibuprofen 200mg tablets' });
    const content = templateCsv([twoItems, uniqueOrder({ surname: 'Smith' })]);
    csv = { ...(await importAndAccept('march.csv', content)), lines: content.replace(/^\uFEFF/, '').split(/\r?\n/) };

    const detail = await api.call('orders.get', { orderId: csv.orderIds[0]! });
    expect(detail.origin).toEqual({
      batchId: csv.batchId,
      fileName: 'march.csv',
      format: 'csv',
      importedAt: expect.any(String) as string,
      position: 1,
      lines: [2, 3],
      message: null,
      controlId: null,
      sourceKept: true,
      edited: false,
    });
    expect((await api.call('orders.get', { orderId: csv.orderIds[1]! })).origin).toMatchObject({
      position: 2,
      lines: [4],
    });

    expect(await api.call('orders.source', { orderId: csv.orderIds[0]! })).toEqual({
      format: 'csv',
      fileName: 'march.csv',
      header: { line: 1, text: csv.lines[0] },
      records: [
        { line: 2, text: csv.lines[1] },
        { line: 3, text: csv.lines[2] },
      ],
    });
  });

  it('an HL7 order: the message index and its control id (MSH-10); the message a segment a line on request', async () => {
    const orders = [uniqueOrder({ surname: 'Jones' }), uniqueOrder({ surname: 'BRONTË' })];
    const text = hl7File(orders);
    hl7 = { ...(await importAndAccept('orders.hl7', text, 'hl7')), text };

    const detail = await api.call('orders.get', { orderId: hl7.orderIds[1]! });
    expect(detail.origin).toMatchObject({
      fileName: 'orders.hl7',
      format: 'hl7',
      position: 2,
      lines: [],
      message: 2,
      controlId: 'MSG-2',
      sourceKept: true,
    });
    const source = await api.call('orders.source', { orderId: hl7.orderIds[1]! });
    const second = text.replace(/\r$/, '').split(/\r(?=MSH)/)[1]!;
    expect(source).toEqual({ format: 'hl7', fileName: 'orders.hl7', message: 2, segments: second.split('\r') });
    if (source.format !== 'hl7') return;
    expect(source.segments[0]).toMatch(/^MSH\|/);
    expect(source.segments.some((segment) => segment.startsWith('PID|'))).toBe(true);
  });

  it('a JSON order: its entry, and plainly no source text; an order from before staging: the file only', async () => {
    const json = await importAndAccept('seed.json', toWireJson([uniqueOrder(), uniqueOrder({ surname: 'Okafor' })]));
    expect((await api.call('orders.get', { orderId: json.orderIds[1]! })).origin).toMatchObject({
      fileName: 'seed.json',
      format: 'json',
      position: 2,
      lines: [],
      sourceKept: false,
    });
    await expect(api.call('orders.source', { orderId: json.orderIds[1]! })).rejects.toThrow(
      `order ${json.orderIds[1]} has no kept source text (imported from JSON or before the app kept each order's source)`,
    );

    const { store } = core.services;
    const batch = store.batches.create({
      environmentId: LOCAL_SANDBOX_ID,
      sourceFileName: 'legacy.csv',
      kind: 'csv',
      rowCount: 1,
      invalidCount: 0,
    });
    const [legacy] = enqueueOrders(store, batch.id, [sampleOrder({ clinicCode: 'LEGACY' })]);
    expect((await api.call('orders.get', { orderId: legacy! })).origin).toEqual({
      batchId: batch.id,
      fileName: 'legacy.csv',
      format: 'csv',
      importedAt: expect.any(String) as string,
      position: null,
      lines: [],
      message: null,
      controlId: null,
      sourceKept: false,
      edited: false,
    });
    await expect(api.call('orders.source', { orderId: legacy! })).rejects.toThrow(/has no kept source text/);
    await expect(api.call('orders.source', { orderId: 987_654 })).rejects.toThrow('there is no order 987654');
  });

  it('finds orders by patient surname, whole or its start, any case or accents, CSV and HL7 alike', async () => {
    const [bronteFenwick, smith] = csv.orderIds as [number, number];
    const [jones, bronte] = hl7.orderIds as [number, number];
    // Newest first (issue #16): the HL7 batch was accepted after the CSV one.
    expect(await surnameSearch('bronte')).toEqual([bronte, bronteFenwick]);
    expect(await surnameSearch('  BRONTË-F ')).toEqual([bronteFenwick]);
    expect(await surnameSearch('smith')).toEqual([smith]);
    expect(await surnameSearch('Jones', { environmentId: LOCAL_SANDBOX_ID, states: ['queued'] })).toEqual([jones]);
    expect(await surnameSearch('Jones', { clinicOrderId: 'not-this-one' })).toEqual([]);
    expect(await surnameSearch('fenwick')).toEqual([]);
    const paged = await api.call('orders.list', { patientSurname: 'bront', limit: 1 });
    expect(paged.orders.map((order) => order.id)).toEqual([bronte]);
    expect(
      (await api.call('orders.list', { patientSurname: 'bront', afterId: paged.nextAfterId!, limit: 1 })).orders.map(
        (order) => order.id,
      ),
    ).toEqual([bronteFenwick]);
  });

  it('never gives the surname back: not in list views, not in the detail, not in the audit log', async () => {
    const list = await api.call('orders.list', { patientSurname: 'bronte' });
    expect(list.orders).toHaveLength(2);
    const shown = JSON.stringify([
      list,
      ...(await Promise.all(list.orders.map((order) => api.call('orders.get', { orderId: order.id })))),
    ]);
    expect(shown).not.toMatch(/bront|fenwick/i);
    const log = await exportLogText(api, { format: 'jsonl', unmask: true });
    expect(log.count).toBeGreaterThan(0);
    expect(log.text).not.toMatch(/bront|fenwick/i);
  });

  it('refuses a bad surname filter or source request with a clear reason that does not repeat the value', async () => {
    const refusal = async (input: unknown, call: 'orders.list' | 'orders.source' = 'orders.list') => {
      const error = await (api.call as (name: string, input: unknown) => Promise<unknown>)(call, input).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ContractError);
      const { code, message, issues } = error as ContractError;
      expect(code).toBe('invalid-input');
      return `${message} ${JSON.stringify(issues)}`;
    };
    expect(await refusal({ patientSurname: '' })).toMatch(/patientSurname/);
    expect(await refusal({ patientSurname: '   ' })).toMatch(/patientSurname/);
    const tooLong = await refusal({ patientSurname: 'Zebedee'.repeat(15) });
    expect(tooLong).toMatch(/patientSurname.*100/);
    expect(tooLong).not.toContain('Zebedee');
    expect(await refusal({ patientSurname: '\u0301\u0301' })).toContain('type at least one letter of the surname');
    expect(await refusal({ patientSurname: '--' })).toContain('type at least one letter of the surname');
    expect(await refusal({ patientSurname: 42 })).toMatch(/patientSurname/);
    expect(await refusal({ orderId: 0 }, 'orders.source')).toMatch(/orderId/);
    expect(await refusal({ orderId: '7' }, 'orders.source')).toMatch(/orderId/);
    expect(await refusal({ orderId: 7, text: true }, 'orders.source')).toMatch(/text/);
  });
});
