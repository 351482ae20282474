import { afterEach, describe, expect, it } from 'vitest';
import { writeRde011 } from '../importing/rde-writer.js';
import { HL7_PROFILE, stagingFixture, uniqueOrder, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { IntakeService } from './intake-service.js';

// A message for a patient its sender records as deceased (PID-30 Y), or a new order its sender has stopped (ORC-5
// DC): no preview edit makes either an order to dispense as sent (neither field is part of the order), so live
// intake answers AE naming the field, and stages nothing to send. Under `send`, so an AA order would be queued.

let fixture: StagingFixture | undefined;
let intake: IntakeService | undefined;
afterEach(async () => {
  await intake?.close();
  fixture?.close();
  intake = undefined;
  fixture = undefined;
});

const SENDER = { sendingApplication: 'EPR-4', sendingFacility: 'CLINIC-D' };

/** The message with field `field` (1-based, as HL7 counts after the segment name) of segment `name` set. */
function withField(message: string, name: string, field: number, value: string): string {
  return message
    .split('\r')
    .map((segment) => {
      if (!segment.startsWith(`${name}|`)) return segment;
      const fields = segment.split('|');
      while (fields.length <= field) fields.push('');
      fields[field] = value;
      return fields.join('|');
    })
    .join('\r');
}

async function answer(edit: (message: string) => string) {
  fixture = stagingFixture();
  fixture.staging.saveProfile({
    ...HL7_PROFILE,
    hl7Sender: { application: SENDER.sendingApplication, facility: SENDER.sendingFacility, messageType: 'RDE^O11' },
  });
  intake = new IntakeService({
    store: fixture.store,
    staging: fixture.staging,
    environmentId: LOCAL.id,
    rules: { mode: 'send' },
  });
  const message = edit(writeRde011(uniqueOrder({}, 'STOP'), { controlId: 'STOP-1', ...SENDER }));
  const result = await intake.handle(Buffer.from(message), '127.0.0.1:40000');
  await intake.staged();
  const queued = fixture.store.orders.countByState(LOCAL.id).queued;
  return { result, queued, err: result.ack.split('\r').slice(2).join('\r') };
}

describe('live intake of an order that must not be dispensed', () => {
  it('answers AE for a patient recorded as deceased, and queues nothing', async () => {
    const { result, queued, err } = await answer((m) => withField(m, 'PID', 30, 'Y'));
    expect(result.code).toBe('AE');
    expect(err).toContain('PID-30 (death indicator)');
    expect(queued).toBe(0);
  });

  it('answers AE for a new order its sender has discontinued, and queues nothing', async () => {
    const { result, queued, err } = await answer((m) => withField(m, 'ORC', 5, 'DC'));
    expect(result.code).toBe('AE');
    expect(err).toContain('ORC-5 (order status)');
    expect(queued).toBe(0);
  });

  it('answers AA and queues the same order with neither', async () => {
    const { result, queued } = await answer((m) => m);
    expect(result.code).toBe('AA');
    expect(queued).toBe(1);
  });
});
