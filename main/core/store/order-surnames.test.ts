import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWithClinicV1Schema } from '../../../shared/orders.js';
import { surnameSearchKey } from '../../../shared/patient-surname.js';
import { toWireJson } from '../../../shared/wire-json.js';
import { sampleCreateWithClinic } from '../../../test/support/orders.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { toCreateV2 } from '../importing/to-create-v2.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './migrations/index.js';
import { openDatabase } from './open-database.js';
import type { NewOrder } from './orders-repo.js';
import type { OrderRoute } from './order-state.js';
import { openStore, STORE_FILE, type Store } from './store.js';
import { LOCAL, removeDir, storeAtVersion, storeWithBatch, tempDataDir } from './testing/store-fixtures.js';

/** An order of `route` whose patient has `surname`, with the request body that route really sends. */
function orderFor(surname: string, route: OrderRoute, clinicOrderId: string): NewOrder {
  const input = sampleCreateWithClinic({ surname, clinicOrderId });
  const v1 = createWithClinicV1Schema.parse(input);
  const items = v1.prescribedItems.map((item) => ({
    dmdCode: item.dmdCode,
    productId: item.productId ?? null,
    medication: item.medication,
    quantity: item.quantity,
  }));
  let requestBody: string;
  if (route === 'hl7') requestBody = writeRde011(input, { controlId: `MSG-${clinicOrderId}` });
  else if (route === 'v2') {
    const v2 = toCreateV2(v1, LOCAL.codeLists);
    if (!v2.ok) throw new Error('the sample order has no v2 form');
    requestBody = toWireJson(v2.body);
  } else requestBody = toWireJson(v1);
  return { clinicCode: 'CLINIC-A', clinicOrderId, route, requestBody, items };
}

describe('patient-surname search', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) if (store.isOpen) store.close();
    for (const dir of dirs.splice(0)) removeDir(dir);
  });

  function seeded(orders: Array<[surname: string, route: OrderRoute]>) {
    const { store, dataDir, batchId } = storeWithBatch();
    stores.push(store);
    dirs.push(dataDir);
    const ids = store.orders.enqueue(
      batchId,
      orders.map(([surname, route], index) => orderFor(surname, route, `S-${index + 1}`)),
    );
    const find = (patientSurname: string, filter: Parameters<Store['orders']['list']>[0] = {}) =>
      store.orders.list({ ...filter, patientSurname }).map((order) => ids.indexOf(order.id));
    return { store, ids, batchId, find };
  }

  it('finds v1, v2 and HL7 orders by the whole surname or its start, whatever the case and accents', () => {
    const { find } = seeded([
      ['Brontë-Fenwick', 'v1'],
      ['BRONTE', 'v2'],
      ['Brontë', 'hl7'],
      ['Smith', 'v1'],
      ['Øster', 'hl7'],
      ["O'Brien & Sons", 'hl7'],
      ['Łukasiewicz', 'v2'],
      ['Bront', 'v1'],
    ]);
    expect(find('bronte')).toEqual([0, 1, 2]);
    expect(find('Brontë')).toEqual([0, 1, 2]);
    expect(find('BRONTË-FEN')).toEqual([0]);
    expect(find('bront')).toEqual([0, 1, 2, 7]);
    expect(find('smith')).toEqual([3]);
    expect(find('smithers')).toEqual([]);
    // Letters NFKD does not take apart, and the apostrophe and ampersand HL7 carries escaped.
    expect(find('oster')).toEqual([4]);
    expect(find('O’Brien & S')).toEqual([5]);
    expect(find('lukas')).toEqual([6]);
    // Only the start of a surname: "fenwick" is inside "Brontë-Fenwick", not at its start.
    expect(find('fenwick')).toEqual([]);
  });

  it('combines with the other filters and pages by id', () => {
    const { store, ids, find } = seeded([
      ['Jones', 'v1'],
      ['Jones', 'v1'],
      ['Jonesy', 'hl7'],
      ['Jones', 'v1'],
    ]);
    expect(store.orders.transition(ids[1]!, ['queued'], 'held', {}, { actor: 'user', action: 'order.held' })).toBe(
      true,
    );
    expect(find('jones', { states: ['queued'] })).toEqual([0, 2, 3]);
    expect(find('jones', { clinicOrderId: 'S-4' })).toEqual([3]);
    expect(find('jones', { limit: 2 })).toEqual([0, 1]);
    expect(find('jones', { afterId: ids[1]!, limit: 2 })).toEqual([2, 3]);
    expect(find('jones', { environmentId: 'elsewhere' })).toEqual([]);
  });

  it('finds nothing for a filter that folds to nothing, rather than everything', () => {
    const { find } = seeded([['Smith', 'v1']]);
    expect(find('\u0301')).toEqual([]);
    expect(find('  ')).toEqual([]);
  });

  it('keeps only a search key per order, never the surname as written, and none for a body without one', () => {
    const { store, ids } = seeded([['Brontë-Fenwick', 'v1']]);
    const [other] = store.orders.enqueue(store.batches.list()[0]!.id, [
      { clinicCode: 'CLINIC-A', clinicOrderId: 'NO-NAME', route: 'hl7', requestBody: 'MSH|^~\\&|A\rPID|1', items: [] },
    ]);
    const keys = store.db.prepare('SELECT order_id AS orderId, surname_key AS key FROM order_surnames').all();
    expect(keys).toEqual([{ orderId: ids[0], key: 'bronte-fenwick' }]);
    expect(store.orders.list({ patientSurname: 'b' }).map((order) => order.id)).not.toContain(other);
  });

  it('keeps the same key for an order enqueued with the object its body was written from (as accept does)', () => {
    const { store, batchId } = storeWithBatch();
    stores.push(store);
    dirs.push(store.dataDir);
    const cases: Array<[surname: string, route: OrderRoute]> = [
      ['  Brontë-Fenwick ', 'v1'],
      ["O'Neill", 'v2'],
    ];
    const keys = (orders: NewOrder[]) => {
      const ids = store.orders.enqueue(batchId, orders);
      return ids.map(
        (id) => store.db.prepare('SELECT surname_key FROM order_surnames WHERE order_id = ?').pluck().get(id) ?? null,
      );
    };
    const fromText = keys(cases.map(([surname, route], i) => orderFor(surname, route, `T-${i}`)));
    const fromObject = keys(
      cases.map(([surname, route], i) => {
        const order = orderFor(surname, route, `O-${i}`);
        return { ...order, writtenFrom: JSON.parse(order.requestBody) as unknown };
      }),
    );
    expect(fromText).toEqual(['bronte-fenwick', surnameSearchKey("O'Neill")]);
    expect(fromObject).toEqual(fromText);
  });

  it('is back-filled by its migration for orders stored before it, JSON and HL7 alike', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const before = MIGRATIONS.find((migration) => migration.name === 'order-surnames')!.version - 1;
    storeAtVersion(dataDir, before);
    const db = openDatabase(join(dataDir, STORE_FILE));
    db.prepare(
      `INSERT INTO import_batches (id, environment_id, source_file_name, kind, row_count, invalid_count, created_at)
       VALUES (1, ?, 'old.csv', 'csv', 3, 0, '2025-01-01T00:00:00Z')`,
    ).run(LOCAL.id);
    const insert = db.prepare(
      `INSERT INTO orders (id, batch_id, environment_id, clinic_code, clinic_order_id, route, request_body, state,
         created_at, updated_at)
       VALUES (?, 1, ?, 'CLINIC-A', ?, ?, ?, 'queued', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`,
    );
    const rows: Array<[number, string, OrderRoute]> = [
      [1, 'Ærø', 'v1'],
      [2, 'Çelik', 'hl7'],
      [3, 'Celikkaya', 'v2'],
    ];
    for (const [id, surname, route] of rows) {
      insert.run(id, LOCAL.id, `OLD-${id}`, route, orderFor(surname, route, `OLD-${id}`).requestBody);
    }
    insert.run(4, LOCAL.id, 'OLD-4', 'v1', 'not json at all');
    db.close();

    const store = openStore({ dataDir });
    stores.push(store);
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    const ids = (surname: string) => store.orders.list({ patientSurname: surname }).map((order) => order.id);
    expect(ids('aero')).toEqual([1]);
    expect(ids('celik')).toEqual([2, 3]);
    expect(ids('ÇELIK')).toEqual([2, 3]);
    expect(store.orders.get(4)?.requestBody).toBe('not json at all');
  });
});

describe('the surname search key', () => {
  it('folds case, accents, ligatures and apostrophe and dash variants, and squeezes spaces', () => {
    expect(surnameSearchKey('  Brontë-Fenwick ')).toBe('bronte-fenwick');
    expect(surnameSearchKey('MÜLLER–STRAßE')).toBe('muller-strasse');
    expect(surnameSearchKey('O’Brien')).toBe("o'brien");
    expect(surnameSearchKey('van  der\tBerg')).toBe('van der berg');
    expect(surnameSearchKey('\uFB01nch')).toBe('finch');
    expect(surnameSearchKey('\u0301')).toBe('');
  });
});
