import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceError } from '../../../shared/errors.js';
import { toWireJson } from '../../../shared/wire-json.js';
import { startSandbox, type RunningSandbox, type StoredOrder } from '../../../sandbox/index.js';
import { clientCredentialsTokenSource, type TestTokenSource } from '../../../test/support/client-credentials.js';
import { sampleHl7, sampleV1, sampleV2 } from '../../../test/support/sample-orders.js';
import { sandboxServiceClient } from '../../../test/support/sandbox-client.js';
import type { CallOutcome, OrderServiceClient, OrderServiceClientOptions } from './client.js';
import { STORED_BODY_CHECK_VERSION } from '../model/stored-body-check.js';

/** The client against the real sandbox (real HTTP, real identity server): every endpoint, every documented failure. */

const EIGHTEEN_DIGITS = '219780111000001103';

function expectError(outcome: CallOutcome<unknown>): ServiceError {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

function expectRejected(outcome: CallOutcome<unknown>, status: number) {
  const error = expectError(outcome);
  if (error.kind !== 'rejected') throw new Error(`expected rejected, got ${JSON.stringify(error)}`);
  expect(error.status).toBe(status);
  // Status 0: refused locally, so no HTTP answer exists.
  expect(outcome.meta.status).toBe(status === 0 ? undefined : status);
  return error;
}

function expectValue<T>(outcome: CallOutcome<T>): T {
  if (!outcome.ok) throw new Error(`expected success, got ${JSON.stringify(outcome.error)}`);
  return outcome.value;
}

let sandbox: RunningSandbox;
let tokens: TestTokenSource;
let client: OrderServiceClient;

function clientWith(overrides: Partial<OrderServiceClientOptions> = {}): OrderServiceClient {
  return sandboxServiceClient(sandbox, { tokens, ...overrides });
}

const stored = (clinicOrderId: string): StoredOrder | undefined =>
  sandbox.listOrders().find((order) => order.clinicOrderId === clinicOrderId);

beforeAll(async () => {
  // Status progression far slower than the tests: orders stay where they were created.
  sandbox = await startSandbox({
    statusStepMs: 3_600_000,
    lockedOutPatients: [{ surname: 'Lockhart', dateOfBirth: '1970-01-01' }],
  });
  tokens = clientCredentialsTokenSource({ issuer: sandbox.issuer, ...sandbox.serviceClient });
  client = clientWith();
});

afterAll(async () => {
  await sandbox?.close();
});

describe('creating orders', () => {
  it('creates with clinic (v1 path), storing exactly the bytes sent', async () => {
    const body = sampleV1({ clinicCode: 'CLINIC-A' });
    const outcome = await client.createWithClinic(body);
    const { orderId } = expectValue(outcome);
    expect(outcome.meta).toMatchObject({ operation: 'createWithClinic', status: 200, attempts: 1 });
    const order = stored(body.prescription.clinicOrderId);
    expect(order).toMatchObject({ pharmacyOrderId: orderId, clinicCode: 'CLINIC-A', route: 'create-with-clinic-v1' });
    expect(order?.status).toBe('Waiting Payment Success');
    expect(order?.rawBody).toBe(toWireJson(body));
  });

  it('uses the v2 create-with-clinic path when the profile says so', async () => {
    const body = sampleV1({ clinicCode: 'CLINIC-V2PATH' });
    expectValue(await clientWith({ createWithClinicVersion: 'v2' }).createWithClinic(body));
    expect(stored(body.prescription.clinicOrderId)?.route).toBe('create-with-clinic-v2');
  });

  it('sends an 18-digit dmdCode as an exact JSON number and gets it back exact from search', async () => {
    const body = sampleV1({ dmdCode: EIGHTEEN_DIGITS });
    expectValue(await client.createWithClinic(body));
    const raw = stored(body.prescription.clinicOrderId)?.rawBody ?? '';
    expect(raw).toContain(`"dmdCode":${EIGHTEEN_DIGITS}`);
    expect(raw).not.toContain(`"dmdCode":"${EIGHTEEN_DIGITS}"`);

    const found = expectValue(await client.searchProducts(EIGHTEEN_DIGITS));
    expect(found).toHaveLength(1);
    expect(found[0]?.dmdCode).toBe(EIGHTEEN_DIGITS);
  });

  it('rejects a second create with the same clinicOrderId for the clinic, and stores nothing new', async () => {
    const body = sampleV1({ clinicCode: 'CLINIC-DUP' });
    expectValue(await client.createWithClinic(body));
    const error = expectRejected(await client.createWithClinic(body), 400);
    expect(error.message).toMatch(/duplicate clinicOrderId/);
    expect(error.fields).toEqual([expect.objectContaining({ field: 'prescription.clinicOrderId' })]);
    expect(sandbox.listOrders().filter((o) => o.clinicOrderId === body.prescription.clinicOrderId)).toHaveLength(1);
  });

  it('allows the same clinicOrderId at another clinic', async () => {
    const first = sampleV1({ clinicCode: 'CLINIC-ONE' });
    const second = sampleV1({ clinicCode: 'CLINIC-TWO', clinicOrderId: first.prescription.clinicOrderId });
    expectValue(await client.createWithClinic(first));
    expectValue(await client.createWithClinic(second));
  });

  it('shows a business-rule 400 from the service with its field (unknown courier)', async () => {
    const body = sampleV1();
    body.prescription.courierCode = 'PIGEON';
    const error = expectRejected(await client.createWithClinic(body), 400);
    expect(error.fields).toEqual([
      { field: 'prescription.courierCode', message: expect.stringContaining('invalid courier PIGEON') as string },
    ]);
    expect(stored(body.prescription.clinicOrderId)).toBeUndefined();
  });

  it('refuses an invalid body before sending: rejected, status 0, the field named', async () => {
    const before = sandbox.requestCount();
    const body = sampleV1();
    (body.prescribedItems[0] as { dmdCode: string }).dmdCode = '0123';
    const outcome = await client.createWithClinic(body);
    const error = expectRejected(outcome, 0);
    expect(error.fields.map((f) => f.field)).toContain('prescribedItems.0.dmdCode');
    expect(outcome.meta.attempts).toBe(0);
    expect(sandbox.requestCount()).toBe(before);
  });

  it('checks a stored body before sending it: a valid one goes byte for byte, a broken one is refused', async () => {
    const body = sampleV1({ clinicCode: 'CLINIC-A' });
    const text = toWireJson(body);
    expectValue(await client.sendCreate('v1', text));
    expect(stored(body.prescription.clinicOrderId)?.rawBody).toBe(text);

    const before = sandbox.requestCount();
    const broken = sampleV1();
    (broken.prescribedItems[0] as { quantity: number }).quantity = 0;
    const outcome = await client.sendCreate('v1', toWireJson(broken));
    expect(expectRejected(outcome, 0).fields.map((f) => f.field)).toContain('prescribedItems.0.quantity');
    expect(sandbox.requestCount()).toBe(before);
  });

  it('trusts a stored body only when the store vouches for it under the current check', async () => {
    // A body the check refuses (quantity 0) but the service would still read, so sending it is visible.
    const broken = sampleV1({ clinicCode: 'CLINIC-A' });
    (broken.prescribedItems[0] as { quantity: number }).quantity = 0;
    const text = toWireJson(broken);

    // No vouch, or one recorded by an older version of the check: checked again, refused unsent.
    for (const checkedBy of [undefined, null, STORED_BODY_CHECK_VERSION + 1, STORED_BODY_CHECK_VERSION - 1]) {
      const before = sandbox.requestCount();
      const outcome = await client.sendCreate('v1', text, checkedBy);
      expect(expectRejected(outcome, 0).fields.map((f) => f.field)).toContain('prescribedItems.0.quantity');
      expect(sandbox.requestCount()).toBe(before);
    }

    // Vouched under the current check: no parse, the stored bytes go out as they are.
    const before = sandbox.requestCount();
    await client.sendCreate('v1', text, STORED_BODY_CHECK_VERSION);
    expect(sandbox.requestCount()).toBe(before + 1);
    // An HL7 message never has a vouch to skip: its own check still runs.
    expectRejected(await client.sendCreate('hl7', 'not hl7', STORED_BODY_CHECK_VERSION), 0);
  });

  it('refuses a locked-out patient with 403', async () => {
    const body = sampleV1({ surname: 'LOCKHART' });
    body.customer.dateOfBirth = '1970-01-01';
    const error = expectRejected(await client.createWithClinic(body), 403);
    expect(error.message).toMatch(/locked out/);
    expect(stored(body.prescription.clinicOrderId)).toBeUndefined();
  });

  it('creates with the v2 shape for a clinic the service knows', async () => {
    expectValue(await client.createWithClinic(sampleV1({ clinicCode: 'CLINIC-KNOWN' })));
    const body = sampleV2({ clinicCode: 'CLINIC-KNOWN', dmdCode: EIGHTEEN_DIGITS });
    const { orderId } = expectValue(await client.createV2(body));
    const order = stored(body.prescription.clinicOrderId);
    expect(order).toMatchObject({ pharmacyOrderId: orderId, route: 'create-v2', clinicCode: 'CLINIC-KNOWN' });
    expect(order?.rawBody).toContain(`"dmdCode":${EIGHTEEN_DIGITS}`);
  });

  it('rejects a v2 create for a clinic the service does not know', async () => {
    const error = expectRejected(await client.createV2(sampleV2({ clinicCode: 'NEVER-REGISTERED' })), 400);
    expect(error.fields).toEqual([
      { field: 'clinicInformation.clinicCode', message: expect.stringContaining('NEVER-REGISTERED') as string },
    ]);
  });

  it('creates from an HL7 message, reading the clinic from ORC-21 and storing the message verbatim', async () => {
    const { message, clinicOrderId } = sampleHl7({ clinicCode: 'CLINIC-HL7' });
    const { orderId } = expectValue(await client.createWithHl7(message));
    expect(stored(clinicOrderId)).toMatchObject({
      pharmacyOrderId: orderId,
      clinicCode: 'CLINIC-HL7',
      route: 'hl7',
      rawBody: message,
    });
    const duplicate = expectRejected(await client.createWithHl7(message), 400);
    expect(duplicate.message).toMatch(/duplicate clinicOrderId/);
  });

  it('falls back to MSH-4 for the HL7 clinic, and explains when there is none', async () => {
    const fromMsh = sampleHl7({ clinicCode: null, sendingFacility: 'CLINIC-MSH' });
    expectValue(await client.createWithHl7(fromMsh.message));
    expect(stored(fromMsh.clinicOrderId)?.clinicCode).toBe('CLINIC-MSH');

    const none = sampleHl7({ clinicCode: null });
    const error = expectRejected(await client.createWithHl7(none.message), 400);
    expect(error.message).toMatch(/no clinic code/);
    expect(stored(none.clinicOrderId)).toBeUndefined();
  });
});

describe('status', () => {
  let orderId: number;
  let clinicOrderId: string;

  beforeAll(async () => {
    const body = sampleV1({ clinicCode: 'CLINIC-STATUS' });
    clinicOrderId = body.prescription.clinicOrderId;
    orderId = expectValue(await client.createWithClinic(body)).orderId;
  });

  it('by pharmacy order id', async () => {
    expect(expectValue(await client.status(orderId))).toEqual({
      clinicOrderId,
      pharmacyOrderId: String(orderId),
      orderStatus: 'Waiting Payment Success',
      dispatchDate: null,
      trackingId: null,
      cancelReason: null,
    });
  });

  it('by an unknown pharmacy order id is 404', async () => {
    expectRejected(await client.status(999_999_999), 404);
  });

  it('with clinic code, by clinic order id or by order id, as an array', async () => {
    const byClinicOrderId = expectValue(
      await client.statusWithClinicCode({ clinicCode: 'CLINIC-STATUS', clinicOrderId }),
    );
    expect(byClinicOrderId.map((r) => r.pharmacyOrderId)).toEqual([String(orderId)]);
    const byOrderId = expectValue(await client.statusWithClinicCode({ clinicCode: 'CLINIC-STATUS', orderId }));
    expect(byOrderId.map((r) => r.clinicOrderId)).toEqual([clinicOrderId]);
    // Another clinic's order is outside the caller's scope: no match, not an error.
    expect(expectValue(await client.statusWithClinicCode({ clinicCode: 'CLINIC-OTHER', orderId }))).toEqual([]);
  });

  it('with clinic code but neither id, or no clinic code, is 400 naming the field', async () => {
    const noIds = expectRejected(await client.statusWithClinicCode({ clinicCode: 'CLINIC-STATUS' }), 400);
    expect(noIds.fields.map((f) => f.field)).toEqual(['orderId']);
    const noClinic = expectRejected(await client.statusWithClinicCode({ clinicCode: '', clinicOrderId }), 400);
    expect(noClinic.fields.map((f) => f.field)).toEqual(['clinicCode']);
  });

  it('by clinic order number', async () => {
    expect(expectValue(await client.statusByClinicOrderNumber(clinicOrderId)).pharmacyOrderId).toBe(String(orderId));
    expectRejected(await client.statusByClinicOrderNumber('NO-SUCH-CLINIC-ORDER'), 404);
  });

  it('by date range: refuses more than 3 days, accepts up to 3', async () => {
    const error = expectRejected(
      await client.statusByDateRange({ startDate: '2025-03-01', endDate: '2025-03-05' }),
      400,
    );
    expect(error.fields.map((f) => f.field)).toEqual(['endDate']);
    expect(expectValue(await client.statusByDateRange({ startDate: '2000-03-01', endDate: '2000-03-04' }))).toEqual([]);
  });
});

describe('cancel', () => {
  it('cancels an order not yet dispatched, with the reason', async () => {
    const body = sampleV1({ clinicCode: 'CLINIC-CANCEL' });
    const { orderId } = expectValue(await client.createWithClinic(body));
    const record = expectValue(
      await client.cancel({ orderId, clinicCode: 'CLINIC-CANCEL', cancelReason: 'Patient changed their mind' }),
    );
    expect(record).toMatchObject({ pharmacyOrderId: String(orderId), orderStatus: 'Cancelled' });
    expect(record.cancelReason).toBe('Patient changed their mind');
    expect(stored(body.prescription.clinicOrderId)?.status).toBe('Cancelled');
  });

  it("is 404 for another clinic's order, which stays as it was", async () => {
    const body = sampleV1({ clinicCode: 'CLINIC-OWNER' });
    const { orderId } = expectValue(await client.createWithClinic(body));
    expectRejected(await client.cancel({ orderId, clinicCode: 'CLINIC-INTRUDER', cancelReason: 'Not mine' }), 404);
    expect(stored(body.prescription.clinicOrderId)?.status).toBe('Waiting Payment Success');
  });

  it('refuses a cancel without clinicCode before sending', async () => {
    const error = expectRejected(await client.cancel({ orderId: 1, clinicCode: '', cancelReason: 'x' }), 0);
    expect(error.fields.map((f) => f.field)).toEqual(['clinicCode']);
  });
});

describe('dispatched orders (fast status progression)', () => {
  let fast: RunningSandbox;
  let fastClient: OrderServiceClient;

  beforeAll(async () => {
    fast = await startSandbox({ statusStepMs: 40 });
    fastClient = sandboxServiceClient(fast);
  });

  afterAll(async () => {
    await fast?.close();
  });

  it('refuses to cancel after dispatch with a business-rule 400, and finds the order by dispatch date', async () => {
    const { orderId } = expectValue(await fastClient.createWithClinic(sampleV1({ clinicCode: 'CLINIC-FAST' })));
    await expect
      .poll(async () => expectValue(await fastClient.status(orderId)).trackingId, { timeout: 10_000, interval: 25 })
      .toBeTruthy();
    const record = expectValue(await fastClient.status(orderId));
    expect(['Prescription Dispatched', 'Prescription Processed']).toContain(record.orderStatus);

    const error = expectRejected(
      await fastClient.cancel({ orderId, clinicCode: 'CLINIC-FAST', cancelReason: 'Too late' }),
      400,
    );
    expect(error.message).toMatch(/only orders not yet dispatched can be cancelled/);

    const day = record.dispatchDate!;
    const inRange = expectValue(await fastClient.statusByDateRange({ startDate: day, endDate: day }));
    expect(inRange.map((r) => r.pharmacyOrderId)).toContain(String(orderId));
  });
});

describe('products and couriers', () => {
  it('searches anonymously by name, without any token source', async () => {
    const anonymous = clientWith({ tokens: null });
    const found = expectValue(await anonymous.searchProducts('paracetamol'));
    expect(found.map((p) => p.name)).toContain('Paracetamol 500mg tablets');
    expect(found.every((p) => /paracetamol/i.test(p.name))).toBe(true);
  });

  it('checks stock by product id and by an 18-digit dmdCode; unknown is 404', async () => {
    const [inStock] = expectValue(await client.searchProducts('Sildenafil'));
    const [outOfStock] = expectValue(await client.searchProducts('Tadalafil'));
    expect(expectValue(await client.stockCheck({ productId: inStock!.productId }))).toEqual({ inStock: true });
    expect(expectValue(await client.stockCheck({ dmdCode: outOfStock!.dmdCode }))).toEqual({ inStock: false });
    expect(outOfStock!.dmdCode).toHaveLength(18);
    expectRejected(await client.stockCheck({ dmdCode: '999999999999999999' }), 404);
  });

  it('prices packs by dmdCode and product id; unknown is 404', async () => {
    const [product] = expectValue(await client.searchProducts(EIGHTEEN_DIGITS));
    const price = expectValue(await client.priceCheck({ productId: product!.productId, dmdCode: EIGHTEEN_DIGITS }, 3));
    expect(price).toMatchObject({
      productId: product!.productId,
      dmdCode: EIGHTEEN_DIGITS,
      totalPacks: 3,
      currencyCode: 'GBP',
    });
    expect(price.totalPrice).toBeCloseTo(price.unitPrice * 3, 2);
    expectRejected(await client.priceCheck({ productId: 424242 }, 1), 404);
  });

  it('lists courier prices', async () => {
    const couriers = expectValue(await client.courierPriceList());
    expect(couriers.map((c) => c.courierCode)).toEqual(expect.arrayContaining(['RMT24', 'RMT48', 'DPD']));
    expect(couriers.every((c) => c.currencyCode === 'GBP' && c.price > 0)).toBe(true);
  });
});

describe('authentication', () => {
  it('is 401 (auth) on a secured call without a token, and nothing is stored', async () => {
    const anonymous = clientWith({ tokens: null });
    const outcome = await anonymous.courierPriceList();
    expect(expectError(outcome)).toMatchObject({ kind: 'auth', status: 401 });
    const body = sampleV1();
    expect(expectError(await anonymous.createWithClinic(body))).toMatchObject({ kind: 'auth', status: 401 });
    expect(stored(body.prescription.clinicOrderId)).toBeUndefined();
  });

  it('refreshes once on 401 and retries with the new token', async () => {
    const own = clientCredentialsTokenSource({ issuer: sandbox.issuer, ...sandbox.serviceClient });
    own.setToken('not-a-valid-jwt');
    const outcome = await clientWith({ tokens: own }).courierPriceList();
    expectValue(outcome);
    expect(outcome.meta.attempts).toBe(2);
    expect(own.fetches()).toBe(1);
  });

  it('gives up with auth when the refresh fails', async () => {
    const broken = clientCredentialsTokenSource({
      issuer: sandbox.issuer,
      clientId: 'rx-batch-service',
      clientSecret: 'wrong',
    });
    broken.setToken('not-a-valid-jwt');
    const outcome = await clientWith({ tokens: broken }).status(1);
    expect(expectError(outcome)).toMatchObject({ kind: 'auth', status: 401 });
    expect(outcome.meta.attempts).toBe(1);
  });

  it('is auth (403 insufficient_scope, naming the scope) when the token lacks the endpoint scope', async () => {
    const productsOnly = clientCredentialsTokenSource({
      issuer: sandbox.issuer,
      ...sandbox.serviceClient,
      scopes: ['cloudrx_productservice'],
    });
    const outcome = await clientWith({ tokens: productsOnly }).courierPriceList();
    const error = expectError(outcome);
    expect(error).toMatchObject({ kind: 'auth', status: 403 });
    expect(outcome.meta.attempts).toBe(1);
    expect(error.message).toMatch(/cloudrx_courierservice.*check the environment's scopes/);
    expectValue(await clientWith({ tokens: productsOnly }).stockCheck({ productId: 1001 }));
  });
});
