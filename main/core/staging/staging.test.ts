import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { createWithClinicV1Schema } from '../../../shared/orders.js';
import { parseWireJson, toWireJson } from '../../../shared/wire-json.js';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { TEMPLATE_COLUMNS } from '../model/field-catalogue.js';
import { headerFingerprint, type MappingProfile } from '../model/mapping-profile.js';
import { STORED_BODY_CHECK_VERSION } from '../model/stored-body-check.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { StagingError } from './staging-deps.js';
import { StagingService } from './staging-service.js';
import {
  HL7_PROFILE,
  eighteenDigitDmd,
  hl7File,
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from './testing/staging-fixtures.js';

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

function open(options: Parameters<typeof stagingFixture>[0] = {}): StagingFixture {
  fixture = stagingFixture(options);
  return fixture;
}

async function staged(
  f: StagingFixture,
  path: string,
  extra: Partial<Parameters<typeof f.staging.importFile>[0]> = {},
) {
  const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path, ...extra });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${JSON.stringify(outcome)}`);
  return outcome;
}

const allOrders = (f: StagingFixture, batchId: number) => f.staging.getBatch(batchId, { limit: 500 }).orders;

describe('staging an import', () => {
  it('stages a CSV with errors: each problem names the file, row and field; an edit re-validates and fixes it', async () => {
    const f = open();
    const good = uniqueOrder();
    const badPostcode = withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE');
    const noSurname = withField(uniqueOrder(), 'customer.surname', undefined);
    const path = f.file('orders.csv', templateCsv([good, badPostcode, noSurname]));

    const outcome = await staged(f, path);
    expect(outcome).toMatchObject({ orders: 3, valid: 1, invalid: 2 });
    expect(outcome.summary).toMatchObject({ format: 'csv', encoding: 'utf-8', delimiter: ',', headerRow: 1 });
    expect(outcome.summary.profile).toBe('template');

    const page = f.staging.getBatch(outcome.batchId, { onlyProblems: true });
    expect(page.total).toBe(2);
    const [postcodeOrder, surnameOrder] = page.orders;
    expect(postcodeOrder!.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        file: 'orders.csv',
        row: 3,
        field: 'homeAddress.postCode',
        code: 'postcode.format',
      }),
    ]);
    expect(postcodeOrder!.provenance['homeAddress.postCode']).toEqual({
      kind: 'csv',
      file: 'orders.csv',
      row: 3,
      column: 'homePostCode',
    });
    expect(postcodeOrder!.request).toBeNull();
    expect(surnameOrder!.problems).toEqual([
      expect.objectContaining({ row: 4, field: 'customer.surname', code: 'field.required' }),
    ]);

    // An unreadable value is kept as typed and reported on its field, like an import would.
    const ambiguous = f.staging.editOrder(postcodeOrder!.id, {
      edits: [
        { path: 'homeAddress.postCode', value: 'LS1 4AP' },
        { path: 'customer.dateOfBirth', value: '03/04/1980' },
      ],
    });
    expect(ambiguous.valid).toBe(false);
    expect(ambiguous.problems.map((p) => [p.field, p.code])).toEqual([['customer.dateOfBirth', 'date.ambiguous']]);

    const fixed = f.staging.editOrder(postcodeOrder!.id, {
      edits: [{ path: 'customer.dateOfBirth', value: '1980-04-03' }],
    });
    expect(fixed).toMatchObject({ valid: true, problems: [], edited: true });
    expect(fixed.provenance['homeAddress.postCode']).toEqual({
      kind: 'edited',
      at: expect.any(String) as unknown,
      was: { kind: 'csv', file: 'orders.csv', row: 3, column: 'homePostCode' },
    });
    // Untouched fields still point at their cells.
    expect(fixed.provenance['customer.firstName']).toEqual({
      kind: 'csv',
      file: 'orders.csv',
      row: 3,
      column: 'firstName',
    });
    // The preview shows the exact request: dm+d codes as number tokens.
    expect(fixed.request).toBe(toWireJson(createWithClinicV1Schema.parse(fixed.body)));

    const named = f.staging.editOrder(surnameOrder!.id, { edits: [{ path: 'customer.surname', value: 'Smith' }] });
    expect(named.valid).toBe(true);
    expect(f.staging.getBatch(outcome.batchId).batch.counts).toMatchObject({ valid: 3, invalid: 0, staged: 3 });

    // The audit names the edited fields, never their values.
    const edits = f.store.audit.search({ action: 'order.edited' });
    expect(edits.map((entry) => entry.details.fieldPath).sort()).toEqual([
      'customer.dateOfBirth',
      'customer.surname',
      'homeAddress.postCode, customer.dateOfBirth',
    ]);
    const auditText = JSON.stringify(f.store.audit.search({ limit: 100 }));
    for (const value of ['LS1 4AP', 'NOT A POSTCODE', 'Smith', '1980-04-03', '03/04/1980']) {
      expect(auditText).not.toContain(value);
    }
  });

  it('accepts only the valid orders, in one transaction with one audit entry; invalid ones stay staged', async () => {
    const f = open();
    const orders = [
      uniqueOrder({ dmdCode: eighteenDigitDmd() }),
      uniqueOrder(),
      withField(uniqueOrder(), 'prescribedItems.0.quantity', 0),
    ];
    const batch = await staged(f, f.file('orders.csv', templateCsv(orders)));
    expect(batch).toMatchObject({ valid: 2, invalid: 1 });

    const outcome = f.staging.accept(batch.batchId);
    expect(outcome).toEqual({
      batchId: batch.batchId,
      environmentId: LOCAL.id,
      route: 'v1',
      accepted: 2,
      cancelled: 0,
      staying: 1,
    });
    const queued = f.store.orders.list({ batchId: batch.batchId });
    expect(queued.map((o) => [o.clinicOrderId, o.state, o.route])).toEqual([
      [orders[0]!.prescription.clinicOrderId, 'queued', 'v1'],
      [orders[1]!.prescription.clinicOrderId, 'queued', 'v1'],
    ]);
    // The exact body the preview showed, 18 digits intact.
    expect(queued[0]!.requestBody).toBe(toWireJson(createWithClinicV1Schema.parse(orders[0])));
    expect(queued[0]!.requestBody).toContain(`"dmdCode":${eighteenDigitDmd()}`);
    expect(f.store.orders.items(queued[0]!.id)[0]).toMatchObject({ dmdCode: eighteenDigitDmd(), quantity: 1 });

    const after = allOrders(f, batch.batchId);
    expect(after.map((o) => [o.state, o.orderId])).toEqual([
      ['accepted', queued[0]!.id],
      ['accepted', queued[1]!.id],
      ['staged', null],
    ]);
    expect(after[0]!.request).toBe(queued[0]!.requestBody);
    const [entry] = f.store.audit.search({ action: 'batch.accepted' });
    expect(entry).toMatchObject({ batchId: batch.batchId, details: { orderCount: 2, invalidCount: 1, route: 'v1' } });

    // Fixed later, the staying order is accepted on its own; nothing is queued twice.
    f.staging.editOrder(after[2]!.id, { edits: [{ path: 'prescribedItems.0.quantity', value: '2' }] });
    expect(f.staging.accept(batch.batchId)).toMatchObject({ accepted: 1, staying: 0 });
    expect(f.store.orders.list({ batchId: batch.batchId })).toHaveLength(3);
    // Each body was checked as it was stored, the edited one too, so the send skips that check.
    expect(f.store.orders.claimForSending(LOCAL.id, 5).map((o) => o.bodyChecked)).toEqual([
      STORED_BODY_CHECK_VERSION,
      STORED_BODY_CHECK_VERSION,
      STORED_BODY_CHECK_VERSION,
    ]);
    expect(verifyAuditChain(f.store)).toEqual({ ok: true, count: expect.any(Number) as unknown });
  });

  it('rolls an accept back whole when it fails part-way', async () => {
    const f = open();
    const batch = await staged(f, f.file('orders.csv', templateCsv([uniqueOrder(), uniqueOrder(), uniqueOrder()])));
    const auditBefore = f.store.audit.lastSeq();
    const markAccepted = f.store.stagedOrders.markAccepted.bind(f.store.stagedOrders);
    let calls = 0;
    const spy = vi.spyOn(f.store.stagedOrders, 'markAccepted').mockImplementation((id, orderId) => {
      calls += 1;
      if (calls === 2) throw new Error('disk full');
      return markAccepted(id, orderId);
    });
    expect(() => f.staging.accept(batch.batchId)).toThrow('disk full');
    spy.mockRestore();

    expect(f.store.orders.list({ batchId: batch.batchId })).toEqual([]);
    expect(allOrders(f, batch.batchId).map((o) => o.state)).toEqual(['staged', 'staged', 'staged']);
    expect(f.store.audit.lastSeq()).toBe(auditBefore);
    expect(f.staging.accept(batch.batchId)).toMatchObject({ accepted: 3 });
  });

  it('flags orders already accepted; a later import that is refused or cancelled changes nothing', async () => {
    const f = open();
    const orders = [uniqueOrder(), uniqueOrder()];
    const first = await staged(f, f.file('first.csv', templateCsv(orders)));
    f.staging.accept(first.batchId);
    const acceptedBefore = f.store.orders.list({ batchId: first.batchId });

    const again = await staged(f, f.file('again.csv', templateCsv([orders[1]!, uniqueOrder()])));
    expect(again).toMatchObject({ orders: 2, valid: 1, invalid: 1 });
    const [duplicate] = f.staging.getBatch(again.batchId, { onlyProblems: true }).orders;
    expect(duplicate!.problems).toEqual([
      expect.objectContaining({ code: 'order.alreadyKnown', field: 'prescription.clinicOrderId', row: 2 }),
    ]);

    const batchesBefore = f.store.batches.list().length;
    const seqBefore = f.store.audit.lastSeq();
    const refused = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file('empty.csv', '') });
    expect(refused).toMatchObject({ status: 'refused', problems: [expect.objectContaining({ code: 'file.empty' })] });
    const headerOnly = await f.staging.importFile({
      environmentId: LOCAL.id,
      path: f.file('header.csv', `${TEMPLATE_COLUMNS.join(',')}\r\n`),
    });
    expect(headerOnly).toMatchObject({
      status: 'refused',
      // What to do, not only what is wrong.
      problems: [
        expect.objectContaining({
          code: 'csv.noRows',
          text: expect.stringContaining('add one row per prescribed item below the header') as unknown,
        }),
      ],
    });

    // A big file cancelled part-way: the progress callback cancels it after the first chunk.
    const big = f.file('big.csv', templateCsv(Array.from({ length: 1500 }, () => uniqueOrder())));
    let progressSeen = 0;
    const cancelling = serviceWithProgress(f, (importId) => {
      progressSeen += 1;
      cancelling.cancelImport(importId);
    });
    const cancelled = await cancelling.importFile({ environmentId: LOCAL.id, path: big, importId: 'big-one' });
    expect(cancelled).toEqual({ status: 'cancelled' });
    expect(progressSeen).toBeGreaterThan(0);

    expect(f.store.batches.list()).toHaveLength(batchesBefore);
    expect(f.store.audit.lastSeq()).toBe(seqBefore);
    expect(f.store.orders.list({ batchId: first.batchId })).toEqual(acceptedBefore);
    // The cancelled import's rows were deleted with its hidden batch: no row belongs to a batch nobody can see.
    const unseen = f.store.db
      .prepare(
        `SELECT (SELECT count(*) FROM import_batches WHERE importing = 1) AS batches,
           (SELECT count(*) FROM staged_orders WHERE batch_id NOT IN (SELECT id FROM import_batches WHERE importing = 0))
             AS rows`,
      )
      .get();
    expect(unseen).toEqual({ batches: 0, rows: 0 });
    expect(verifyAuditChain(f.store).ok).toBe(true);
  });

  it('exports errors as the original rows plus an errors column; fixed in the file, they import valid', async () => {
    const f = open();
    const good = uniqueOrder();
    const badDmd = withField(uniqueOrder(), 'prescribedItems.0.dmdCode', '42109611000001108');
    // Semicolons and a title row above the header: the export keeps the file's own layout.
    const csv = `Orders for March\r\n${templateCsv([good, badDmd]).replaceAll(',', ';')}`;
    const batch = await staged(f, f.file('march.csv', csv));
    expect(batch).toMatchObject({ valid: 1, invalid: 1 });
    expect(batch.summary).toMatchObject({ delimiter: ';', headerRow: 2 });

    const counts = { orders: 0, rows: 0 };
    const exported = [...f.staging.errorCsv(batch.batchId, counts)].join('');
    const lines = exported.split('\r\n');
    expect(counts.orders).toBe(1);
    expect(lines[0]).toBe(`${TEMPLATE_COLUMNS.join(';')};errors`);
    const originalRow = csv.split('\r\n')[3]!;
    expect(lines[1]!.startsWith(`${originalRow};"`)).toBe(true);
    expect(lines[1]).toMatch(/;"Item 1 dm\+d code '42109611000001108' .*check digit.*"$/);
    expect(lines.slice(2)).toEqual(['']);

    const fixedText = exported.replace('42109611000001108', '42109611000001109');
    const reimported = await staged(f, f.file('march-fixed.csv', fixedText));
    expect(reimported).toMatchObject({ orders: 1, valid: 1, invalid: 0 });
    expect(reimported.summary.profile).toBe('template');
    const [order] = allOrders(f, reimported.batchId);
    expect(order!.body).toEqual(
      createWithClinicV1Schema.parse(withField(badDmd, 'prescribedItems.0.dmdCode', '42109611000001109')),
    );
  });

  it('stages a summary line after the rows as one entry with one error, in the error export, never accepted', async () => {
    const f = open();
    const csv = `${templateCsv([uniqueOrder()])}Total: 1 order\r\n`;
    const batch = await staged(f, f.file('with-total.csv', csv));
    expect(batch).toMatchObject({ orders: 2, valid: 1, invalid: 1 });
    const summary = f.staging.getBatch(batch.batchId, { onlyProblems: true }).orders;
    expect(summary).toHaveLength(1);
    expect(summary[0]!.problems).toEqual([
      expect.objectContaining({ severity: 'error', code: 'csv.summaryRow', row: 3, file: 'with-total.csv' }),
    ]);
    const lines = [...f.staging.errorCsv(batch.batchId)].join('').split('\r\n');
    expect(lines[1]).toMatch(/^Total: 1 order,"Row 3 looks like a summary line, not an order: .*"$/);
    expect(f.staging.accept(batch.batchId)).toMatchObject({ accepted: 1, staying: 1 });
  });

  it('keeps mapping profiles in the store and chooses them by header fingerprint, error exports included', async () => {
    const f = open();
    const header = TEMPLATE_COLUMNS.map((column) =>
      column === 'dateOfBirth' ? 'DOB' : column === 'surname' ? 'Patient Surname' : column,
    );
    const orders = [uniqueOrder(), withField(uniqueOrder(), 'customer.telephone', '12345')];
    // dd/MM/yyyy dates: 03/04/1980 is ambiguous unless the profile says how dates are written.
    const rows = templateCsv(orders).replaceAll('1980-01-15', '03/04/1980').split('\r\n').slice(1).join('\r\n');
    const csv = `${header.join(',')}\r\n${rows}`;

    const suggested = await staged(f, f.file('clinic-x.csv', csv));
    expect(suggested.summary.profile).toBe('suggested');
    expect(suggested.invalid).toBe(2);

    const profile: MappingProfile = {
      name: 'clinic-x',
      headerFingerprint: headerFingerprint(header),
      columns: Object.fromEntries(header.map((cell, index) => [TEMPLATE_COLUMNS[index]!, cell])),
      constants: {},
      valueMaps: {},
      dateFormat: 'dd/MM/yyyy',
    };
    expect(() => f.staging.saveProfile({ ...profile, name: 'suggested' })).toThrow(StagingError);
    f.staging.saveProfile(profile, suggested.batchId);
    expect(f.staging.listProfiles()).toEqual([
      expect.objectContaining({ name: 'clinic-x', headerFingerprint: profile.headerFingerprint }),
    ]);

    const mapped = await staged(f, f.file('clinic-x-2.csv', csv));
    expect(mapped.summary.profile).toBe('clinic-x');
    expect(mapped).toMatchObject({ valid: 1, invalid: 1 });
    expect((allOrders(f, mapped.batchId)[0]!.body as { customer: { dateOfBirth: string } }).customer.dateOfBirth).toBe(
      '1980-04-03',
    );

    const errors = [...f.staging.errorCsv(mapped.batchId)].join('');
    expect(errors.split('\r\n')[0]).toBe(`${header.join(',')},errors`);
    const back = await staged(f, f.file('clinic-x-fixed.csv', errors.replace(',12345,', ',07700900123,')));
    expect(back.summary.profile).toBe('clinic-x');
    expect(back).toMatchObject({ valid: 1, invalid: 0 });
  });

  it('exports a batch in the template, which imports back to the same bodies', async () => {
    const f = open();
    const orders = [
      uniqueOrder({ dmdCode: eighteenDigitDmd(7) }),
      withField(
        withField(uniqueOrder(), 'clinicInformation.contactNumber', '01904 000000'),
        'prescription.clinicOrderValue',
        24.5,
      ),
    ];
    orders[1]!.prescribedItems.push({ ...orders[1]!.prescribedItems[0]!, dmdCode: '42109611000001109', quantity: 5 });
    const batch = await staged(f, f.file('orders.csv', templateCsv(orders)));
    const exported = [...f.staging.templateCsv(batch.batchId)].join('');
    expect(exported.split('\r\n')[0]).toBe(TEMPLATE_COLUMNS.join(','));

    const again = await staged(f, f.file('exported.csv', exported));
    const bodies = (id: number) => allOrders(f, id).map((order) => order.body);
    expect(bodies(again.batchId)).toEqual(bodies(batch.batchId));
    expect(bodies(again.batchId)).toEqual(orders.map((order) => createWithClinicV1Schema.parse(order)));

    const example = await staged(f, f.file('example.csv', f.staging.exampleTemplate().text));
    expect(example).toMatchObject({ orders: 1, valid: 1 });
  });

  it('stages HL7 with provenance such as RXE-12 and forwards the original message on the HL7 route', async () => {
    const f = open();
    f.staging.saveProfile(HL7_PROFILE);
    const orders = [withField(uniqueOrder(), 'prescription.repeatsAllowed', 3), uniqueOrder()];
    const text = hl7File(orders);
    const batch = await staged(f, f.file('orders.hl7', text), { profile: 'hl7-clinic', route: 'hl7' });
    expect(batch).toMatchObject({ orders: 2, valid: 2 });
    expect(batch.summary).toMatchObject({ format: 'hl7', messageTypes: ['RDE^O11'], profile: 'hl7-clinic' });

    const [first, second] = allOrders(f, batch.batchId);
    expect(first!.provenance['prescription.repeatsAllowed']).toMatchObject({
      kind: 'hl7',
      file: 'orders.hl7',
      message: 1,
      path: 'RXE-12.1',
    });
    expect(first!.provenance['prescription.courierCode']).toEqual({
      kind: 'constant',
      profile: 'hl7-clinic',
      column: 'courierCode',
    });
    const messages = text.replace(/\r$/, '').split(/\r(?=MSH)/);
    expect(first!.request).toBe(messages[0]);
    expect(first!.message).toBe(1);

    // Edited, the order no longer matches its message: it cannot be forwarded, but v1 can send it.
    const edited = f.staging.editOrder(second!.id, { edits: [{ path: 'customer.firstName', value: 'Alexandra' }] });
    expect(edited.valid).toBe(false);
    expect(edited.problems.map((p) => p.code)).toEqual(['route.hl7Edited']);
    expect(f.staging.setRoute(batch.batchId, 'v1')).toMatchObject({ valid: 2, invalid: 0 });
    expect(f.staging.setRoute(batch.batchId, 'hl7')).toMatchObject({ valid: 1, invalid: 1 });

    const outcome = f.staging.accept(batch.batchId);
    expect(outcome).toMatchObject({ route: 'hl7', accepted: 1, staying: 1 });
    const [queued] = f.store.orders.list({ batchId: batch.batchId });
    expect(queued).toMatchObject({
      route: 'hl7',
      requestBody: messages[0],
      clinicOrderId: orders[0]!.prescription.clinicOrderId,
    });

    // A CSV batch has no messages to forward.
    const csv = await staged(f, f.file('orders.csv', templateCsv([uniqueOrder()])));
    expect(() => f.staging.setRoute(csv.batchId, 'hl7')).toThrow('only HL7 batches can be forwarded as HL7');
    const refused = await f.staging.importFile({
      environmentId: LOCAL.id,
      path: f.file('x.csv', templateCsv([uniqueOrder()])),
      route: 'hl7',
    });
    expect(refused).toMatchObject({
      status: 'refused',
      problems: [expect.objectContaining({ code: 'route.hl7NotHl7' })],
    });
  });

  it('stages RDE^O01 (HL7 v2.3) orders: sent by v1, but never forwarded as HL7 (the service reads RDE^O11)', async () => {
    const f = open();
    f.staging.saveProfile(HL7_PROFILE);
    const text = hl7File([uniqueOrder(), uniqueOrder()])
      .replaceAll('RDE^O11^RDE_O11', 'RDE^O01')
      .replaceAll('|P|2.5', '|P|2.3');
    const batch = await staged(f, f.file('v23.hl7', text), { profile: 'hl7-clinic', route: 'hl7' });
    expect(batch).toMatchObject({ orders: 2, valid: 0, invalid: 2 });
    expect(batch.summary).toMatchObject({ messageTypes: ['RDE^O01'] });
    const [first] = allOrders(f, batch.batchId);
    expect(first!.problems).toEqual([
      expect.objectContaining({ severity: 'error', code: 'route.hl7MessageType', file: 'v23.hl7', message: 1 }),
    ]);
    expect(first!.problems[0]!.text).toBe(
      "This order came from an RDE^O01 message (HL7 v2.3's pharmacy order); the service's HL7 endpoint reads only RDE^O11, OMP^O09 and ORM^O01, so the original message cannot be forwarded as it is: send the batch by create-with-clinic or v2.",
    );
    expect(f.staging.setRoute(batch.batchId, 'v1')).toMatchObject({ valid: 2, invalid: 0 });
    expect(f.staging.accept(batch.batchId)).toMatchObject({ route: 'v1', accepted: 2, staying: 0 });
  });

  it('on the HL7 route, waives only what the message cannot carry, and restores those errors on another route', async () => {
    const f = open();
    const good = uniqueOrder();
    const badDmd = withField(uniqueOrder(), 'prescribedItems.0.dmdCode', '12345678');
    const text = hl7File([good, badDmd]);
    // No profile: nothing supplies payment type, courier or currency.
    const batch = await staged(f, f.file('plain.hl7', text));
    expect(batch).toMatchObject({ orders: 2, valid: 0, invalid: 2 });
    const before = allOrders(f, batch.batchId);
    const waivable = ['prescription.courierCode', 'prescription.currencyCode', 'prescription.paymentType'];
    expect(
      before[0]!.problems
        .filter((p) => p.severity === 'error')
        .map((p) => p.field)
        .sort(),
    ).toEqual(waivable);

    expect(f.staging.setRoute(batch.batchId, 'hl7')).toMatchObject({ valid: 1, invalid: 1 });
    const [forwarded, blocked] = allOrders(f, batch.batchId);
    expect(forwarded!.problems.map((p) => [p.field, p.severity])).toEqual(
      before[0]!.problems.map((p) => [p.field, 'warning']),
    );
    expect(forwarded!.problems[0]!.text).toMatch(/Not needed to forward the HL7 message/);
    expect(forwarded!.request).toBe(text.replace(/\r$/, '').split(/\r(?=MSH)/)[0]);
    // What the message does carry is still checked: a bad dm+d code keeps the order off every route.
    expect(blocked!.valid).toBe(false);
    expect(blocked!.problems.filter((p) => p.severity === 'error').map((p) => p.field)).toEqual([
      'prescribedItems.0.dmdCode',
    ]);

    expect(f.staging.setRoute(batch.batchId, 'v1')).toMatchObject({ valid: 0, invalid: 2 });
    expect(allOrders(f, batch.batchId)[0]!.problems).toEqual(before[0]!.problems);

    // An edited order no longer matches its message, so it can only go by v1 or v2: nothing is waived for it.
    f.staging.setRoute(batch.batchId, 'hl7');
    const edited = f.staging.editOrder(forwarded!.id, { edits: [{ path: 'customer.firstName', value: 'Sam' }] });
    expect(edited.valid).toBe(false);
    expect(edited.problems.map((p) => `${p.field} ${p.severity}`).sort()).toEqual(waivable.map((f) => `${f} error`));

    const accepted = await staged(f, f.file('again.hl7', hl7File([uniqueOrder()])), { route: 'hl7' });
    expect(accepted).toMatchObject({ valid: 1 });
    expect(f.staging.accept(accepted.batchId)).toMatchObject({ route: 'hl7', accepted: 1 });
    const [queued] = f.store.orders.list({ batchId: accepted.batchId });
    expect(queued!.requestBody.startsWith('MSH|')).toBe(true);
    expect(f.store.orders.items(queued!.id)).toHaveLength(1);
  });

  it('turns an HL7 cancel (ORC-1 CA) of an accepted order into its withdrawal or cancel request on accept', async () => {
    const f = open();
    f.staging.saveProfile(HL7_PROFILE);
    const order = uniqueOrder();
    const sent = await staged(f, f.file('new.hl7', hl7File([order])), { profile: 'hl7-clinic' });
    f.staging.accept(sent.batchId);
    const [queued] = f.store.orders.list({ batchId: sent.batchId });

    const cancel = await staged(f, f.file('cancel.hl7', hl7File([order], 'CA')), { profile: 'hl7-clinic' });
    expect(cancel).toMatchObject({ orders: 1, valid: 1 });
    expect(allOrders(f, cancel.batchId)[0]!.orderControl).toBe('CA');
    expect(() =>
      f.staging.editOrder(allOrders(f, cancel.batchId)[0]!.id, { edits: [{ path: 'customer.surname', value: 'X' }] }),
    ).toThrow('HL7 cancel');
    expect(f.staging.accept(cancel.batchId)).toMatchObject({ accepted: 0, cancelled: 1, staying: 0 });
    // Never sent, so withdrawn on the spot.
    expect(f.store.orders.get(queued!.id)?.state).toBe('withdrawn');
    expect(allOrders(f, cancel.batchId)[0]).toMatchObject({ state: 'accepted', orderId: queued!.id });
  });

  it('withdraws an order whose cancel (ORC-1 CA) follows its new order (NW) in the same file, never sending it', async () => {
    const f = open();
    f.staging.saveProfile(HL7_PROFILE);
    const order = uniqueOrder();
    const text = hl7File([order]) + hl7File([order], 'CA').replace('|MSG-1|', '|MSG-2|');
    const batch = await staged(f, f.file('new-then-cancel.hl7', text), { profile: 'hl7-clinic' });
    expect(allOrders(f, batch.batchId).map((o) => o.orderControl)).toEqual(['NW', 'CA']);
    expect(f.staging.accept(batch.batchId)).toMatchObject({ accepted: 1, cancelled: 1, staying: 0 });
    const orders = f.store.orders.list({ batchId: batch.batchId });
    expect(orders.map((o) => o.state)).toEqual(['withdrawn']);
  });

  it("locates a route problem at the row its value came from, not the order's first row", async () => {
    const codeLists = { ...DEFAULT_CODE_LISTS, courierCodes: [...DEFAULT_CODE_LISTS.courierCodes, 'XPRESS'] };
    const f = open({ codeLists });
    const order = withField(uniqueOrder(), 'prescription.courierCode', 'XPRESS');
    order.prescribedItems = [order.prescribedItems[0]!, { ...order.prescribedItems[0]!, dmdCode: eighteenDigitDmd(2) }];
    // Lines 2 and 3 are the order's rows; the courier code only on line 3.
    const lines = templateCsv([order]).split(/\r?\n/);
    const at = TEMPLATE_COLUMNS.indexOf('courierCode');
    const first = lines[1]!.split(',');
    expect(first[at]).toBe('XPRESS');
    first[at] = '';
    lines[1] = first.join(',');
    const batch = await staged(f, f.file('later-row.csv', lines.join('\n')), { route: 'v2' });
    expect(batch).toMatchObject({ orders: 1, invalid: 1 });
    expect(allOrders(f, batch.batchId)[0]!.problems).toEqual([
      expect.objectContaining({ code: 'v2.unmapped', field: 'prescription.courierCode', row: 3 }),
    ]);
  });

  it('sends the v2 body with integer codes, and keeps an order whose code has no v2 number staged', async () => {
    const codeLists = {
      ...DEFAULT_CODE_LISTS,
      courierCodes: [...DEFAULT_CODE_LISTS.courierCodes, 'XPRESS'],
    };
    const f = open({ codeLists });
    const orders = [
      withField(uniqueOrder(), 'prescription.repeatsAllowed', 2),
      withField(uniqueOrder(), 'prescription.courierCode', 'XPRESS'),
    ];
    const batch = await staged(f, f.file('orders.csv', templateCsv(orders)), { route: 'v2' });
    expect(batch).toMatchObject({ valid: 1, invalid: 1 });
    const [mapped, unmapped] = allOrders(f, batch.batchId);
    const v2 = parseWireJson(mapped!.request!) as {
      customer: { title: unknown; dateOfBirth: string };
      prescription: { paymentType: unknown; courierCode: unknown };
      prescribedItems: Array<{ allowedRepeats: unknown; dmdCode: unknown }>;
      clinicInformation: Record<string, unknown>;
    };
    expect(v2.customer).toMatchObject({ title: codeLists.v2Title.Ms, dateOfBirth: '1980-01-15T00:00:00Z' });
    expect(v2.prescription).toMatchObject({ paymentType: 1, courierCode: 1 });
    expect(v2.prescribedItems[0]).toMatchObject({ allowedRepeats: 2 });
    expect(mapped!.request).toContain('"dmdCode":42109611000001109');
    expect(Object.keys(v2.clinicInformation)).toEqual(['clinicCode']);
    expect(unmapped!.problems).toEqual([
      expect.objectContaining({ code: 'v2.unmapped', field: 'prescription.courierCode', row: 3 }),
    ]);
    // On the v1 route the same order is fine.
    expect(f.staging.setRoute(batch.batchId, 'v1')).toMatchObject({ valid: 2 });
    expect(f.staging.setRoute(batch.batchId, 'v2')).toMatchObject({ valid: 1 });
    f.staging.accept(batch.batchId);
    expect(f.store.orders.list({ batchId: batch.batchId }).map((o) => [o.route, o.requestBody])).toEqual([
      ['v2', mapped!.request],
    ]);
  });

  it('finds and replaces one field across a batch, re-validating and auditing the field path only', async () => {
    const f = open();
    const orders = [
      withField(uniqueOrder(), 'prescription.courierCode', 'Royal Mail 24'),
      withField(uniqueOrder(), 'prescription.courierCode', 'Royal Mail 24'),
      withField(uniqueOrder(), 'prescription.courierCode', 'RMT48'),
    ];
    const batch = await staged(f, f.file('orders.csv', templateCsv(orders)));
    expect(batch).toMatchObject({ valid: 1, invalid: 2 });
    const result = await f.staging.replace({
      batchId: batch.batchId,
      field: 'courierCode',
      find: 'Royal Mail 24',
      replace: 'RMT24',
    });
    expect(result).toEqual({
      changed: 2,
      cells: 2,
      counts: expect.objectContaining({ valid: 3, invalid: 0 }) as unknown,
    });
    const after = allOrders(f, batch.batchId);
    expect(after.map((o) => (o.body as { prescription: { courierCode: string } }).prescription.courierCode)).toEqual([
      'RMT24',
      'RMT24',
      'RMT48',
    ]);
    expect(after[0]!.provenance['prescription.courierCode']).toMatchObject({ kind: 'edited' });
    expect(after[2]!.provenance['prescription.courierCode']).toMatchObject({ kind: 'csv' });
    const [entry] = f.store.audit.search({ action: 'batch.replaced' });
    expect(entry!.details).toEqual({ fieldPath: 'prescription.courierCode', orderCount: 2 });
    expect(JSON.stringify(entry)).not.toContain('Royal Mail');

    // Item fields are replaced on every item.
    const items = await f.staging.replace({
      batchId: batch.batchId,
      field: 'prescribedItems.*.medication',
      find: '500mg',
      replace: '500 mg',
      match: 'contains',
    });
    expect(items.changed).toBe(3);
    expect((after[0]!.body as { prescribedItems: Array<{ medication: string }> }).prescribedItems[0]!.medication).toBe(
      'Paracetamol 500mg tablets',
    );
    expect(
      (allOrders(f, batch.batchId)[0]!.body as { prescribedItems: Array<{ medication: string }> }).prescribedItems[0]!
        .medication,
    ).toBe('Paracetamol 500 mg tablets');
    await expect(
      f.staging.replace({ batchId: batch.batchId, field: 'customer.shoeSize', find: '', replace: '9' }),
    ).rejects.toThrow('not a field of an order');
  });

  it('refuses a JSON file nested too deeply to be orders with a sentence, not the parser stack', async () => {
    const f = open();
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file('deep.json', deep) });
    expect(outcome).toMatchObject({
      status: 'refused',
      problems: [
        { code: 'json.unreadable', text: 'The file is not JSON (it is nested too deeply to be a list of orders).' },
      ],
    });
  });

  it('stages a JSON array losslessly, and a browser upload through a private temp file it removes', async () => {
    const f = open();
    const orders = [
      uniqueOrder({ dmdCode: eighteenDigitDmd(3) }),
      withField(uniqueOrder(), 'deliveryAddress', { city: 'Leeds' }),
    ];
    const json = await staged(f, f.file('orders.json', toWireJson(orders)));
    expect(json).toMatchObject({ orders: 2, valid: 1, invalid: 1 });
    const [first, second] = allOrders(f, json.batchId);
    expect(first!.request).toContain(`"dmdCode":${eighteenDigitDmd(3)}`);
    expect(second!.problems.map((p) => p.field)).toContain('deliveryAddress.address1');
    expect(f.store.batches.get(json.batchId)).toMatchObject({ kind: 'json', sourceFileName: 'orders.json' });

    const upload = await f.staging.importFile({
      environmentId: LOCAL.id,
      upload: { name: 'upload.csv', content: templateCsv([uniqueOrder()]) },
    });
    expect(upload).toMatchObject({ status: 'staged', orders: 1, valid: 1 });
    expect(readdirSync(join(f.store.dataDir, 'import-uploads'))).toEqual([]);
    await expect(f.staging.importFile({ environmentId: LOCAL.id, path: 'relative.csv' })).rejects.toThrow(
      'is not an absolute path',
    );
    expect(await f.staging.importFile({ environmentId: LOCAL.id, path: f.dataDir })).toMatchObject({
      status: 'refused',
      problems: [
        { code: 'file.notRegular', text: 'The path is a folder, not a CSV or HL7 file; choose a file inside it.' },
      ],
    });
  });
});

/** A second service over the fixture's store whose progress callback can act on the running import. */
function serviceWithProgress(f: StagingFixture, onProgress: (importId: string) => void): StagingService {
  return new StagingService({
    store: f.store,
    codeListsFor: () => LOCAL.codeLists,
    onProgress: (progress) => onProgress(progress.importId),
  });
}
