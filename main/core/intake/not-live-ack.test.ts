import { afterEach, describe, expect, it } from 'vitest';
import { writeRde011 } from '../importing/rde-writer.js';
import { HL7_PROFILE, stagingFixture, uniqueOrder, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { IntakeService } from './intake-service.js';

// A test system's message (MSH-11 T) over live intake: a live environment answers AE (it can never become an order
// as sent: no preview edit makes a training message a prescription), the local sandbox AA with the warning staged.
// Under `send`, so an AA order would be queued at once.

let fixture: StagingFixture | undefined;
let intake: IntakeService | undefined;
afterEach(async () => {
  await intake?.close();
  fixture?.close();
  intake = undefined;
  fixture = undefined;
});

const SENDER = { sendingApplication: 'EPR-3', sendingFacility: 'CLINIC-T' };
const LIVE = { ...LOCAL, id: 'pharmacy-live', kind: 'remote' as const, apiBaseUrl: 'https://orders.example/api' };

async function answer(environmentId: string, processingId: string) {
  fixture = stagingFixture();
  fixture.store.environments.upsert(LIVE);
  fixture.staging.saveProfile({
    ...HL7_PROFILE,
    hl7Sender: { application: SENDER.sendingApplication, facility: SENDER.sendingFacility, messageType: 'RDE^O11' },
  });
  intake = new IntakeService({
    store: fixture.store,
    staging: fixture.staging,
    environmentId,
    rules: { mode: 'send' },
  });
  const message = writeRde011(uniqueOrder({}, 'TRAIN'), { controlId: 'TRAIN-1', ...SENDER });
  const fields = message.split('\r')[0]!.split('|');
  fields[10] = processingId;
  const raw = [fields.join('|'), ...message.split('\r').slice(1)].join('\r');
  const result = await intake.handle(Buffer.from(raw), '127.0.0.1:40000');
  await intake.staged();
  const queued = fixture.store.db.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number };
  return { result, queued: queued.n, msa: result.ack.split('\r')[1]!, err: result.ack.split('\r').slice(2) };
}

describe('live intake of a test system’s message (MSH-11 T)', () => {
  it('answers AE naming MSH-11 in a live environment, and queues nothing', async () => {
    const { result, queued, err } = await answer(LIVE.id, 'T');
    expect(result.code).toBe('AE');
    expect(err.join('\r')).toContain("MSH-11 (processing id) is 'T', training");
    expect(queued).toBe(0);
  });

  it('answers AA in the local sandbox and sends it there', async () => {
    const { result, queued } = await answer(LOCAL.id, 'T');
    expect(result.code).toBe('AA');
    expect(queued).toBe(1);
  });

  it('answers a live message AA in a live environment', async () => {
    const { result } = await answer(LIVE.id, 'P');
    expect(result.code).toBe('AA');
  });
});
