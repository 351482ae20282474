import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { sandboxServiceClient } from '../../../test/support/sandbox-client.js';
import type { Logger } from '../platform/logger.js';
import type { OrderServiceClient } from './client.js';

// What the client writes to the app's log, against the real sandbox: one line per read and per failure, none per
// successful create or cancel (the outbox records each of those in the submission log; a batch sends thousands a
// second), and never a body, a token or a patient field.

let sandbox: RunningSandbox;
let client: OrderServiceClient;
const lines: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
const record =
  (level: string) =>
  (message: string, fields?: Record<string, unknown>): void => {
    lines.push({ level, message, fields: fields ?? {} });
  };
const logger: Logger = { info: record('info'), warn: record('warn'), error: record('error') };

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  client = sandboxServiceClient(sandbox, { logger });
});

afterAll(async () => {
  await sandbox?.close();
});

describe('order service client log lines', () => {
  it('logs reads and failures, not each successful create or cancel', async () => {
    const order = sampleV1({ clinicCode: 'LOG-CLINIC' });
    const created = await client.createWithClinic(order);
    expect(created.ok).toBe(true);
    const orderId = created.ok ? created.value.orderId : 0;
    expect((await client.cancel({ orderId, clinicCode: 'LOG-CLINIC', cancelReason: 'test' })).ok).toBe(true);
    // Successful sends: nothing in the app's log.
    expect(lines).toEqual([]);

    expect((await client.status(orderId)).ok).toBe(true);
    // The same clinicOrderId again: refused by the service, and that is logged.
    expect((await client.createWithClinic(order)).ok).toBe(false);
    expect(lines.map(({ level, message, fields }) => [level, message, fields.operation, fields.outcome])).toEqual([
      ['info', 'order service call', 'status', 'ok'],
      ['warn', 'order service call failed', 'createWithClinic', 'rejected'],
    ]);
    const text = JSON.stringify(lines);
    expect(text).not.toContain(order.customer.surname);
    expect(text).not.toContain(order.prescription.clinicOrderId);
  });
});
