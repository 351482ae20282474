import { afterEach, describe, expect, it } from 'vitest';
import { writeRde011 } from '../importing/rde-writer.js';
import { HL7_PROFILE, stagingFixture, uniqueOrder, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { IntakeService } from './intake-service.js';

// Issue #17: staging follows the ACK. A process that dies after a message's row (outcome and ACK) is durable and
// before its staging commits leaves an answered, unstaged row; the next start stages it, once, and under 'send'
// queues its order once.

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

function setUp() {
  fixture = stagingFixture();
  fixture.staging.saveProfile({
    ...HL7_PROFILE,
    name: 'EPR',
    hl7Sender: { application: 'EPR-7', facility: 'CLINIC-H', messageType: 'RDE^O11' },
  });
  return fixture;
}

const count = (f: StagingFixture, sql: string) => (f.store.db.prepare(sql).get() as { n: number }).n;

describe('intake recovery at start', () => {
  it('stages a message answered before a stop but never staged, once, and queues it under send', async () => {
    const f = setUp();
    const order = uniqueOrder({}, 'REC');
    const raw = Buffer.from(
      writeRde011(order, { controlId: 'REC-1', sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' }),
    );
    // What a process killed between the ACK and the staging leaves: the row, answered AA, with no batch.
    const intake = new IntakeService({ store: f.store, staging: f.staging, environmentId: LOCAL.id });
    intake.repo.record({
      environmentId: LOCAL.id,
      channel: 'mllp',
      sender: 'EPR-7^CLINIC-H',
      controlId: 'REC-1',
      peer: '127.0.0.1:5000',
      raw,
      outcome: 'AA',
      ack: 'MSH|^~\\&|ACK',
      batchId: null,
    });
    await intake.close();

    const restarted = new IntakeService({
      store: f.store,
      staging: f.staging,
      environmentId: LOCAL.id,
      rules: { mode: 'send' },
    });
    expect(await restarted.recover()).toBe(1);
    expect(count(f, 'SELECT count(*) AS n FROM staged_orders')).toBe(1);
    expect(count(f, "SELECT count(*) AS n FROM orders WHERE state = 'queued'")).toBe(1);
    const row = restarted.repo.find(LOCAL.id, 'EPR-7^CLINIC-H', 'REC-1')!;
    expect(row.batchId).not.toBeNull();
    expect(row.ack).toBe('MSH|^~\\&|ACK'); // the answer given stays the answer
    expect(f.store.audit.search({ action: 'intake.accepted' })).toHaveLength(1);

    // Started again: nothing left to stage, nothing staged or queued twice.
    await restarted.close();
    const again = new IntakeService({ store: f.store, staging: f.staging, environmentId: LOCAL.id });
    expect(await again.recover()).toBe(0);
    await again.close();
    expect(count(f, 'SELECT count(*) AS n FROM staged_orders')).toBe(1);
    expect(count(f, "SELECT count(*) AS n FROM orders WHERE state = 'queued'")).toBe(1);
  });

  it('stages on close what is still waiting, so a clean stop leaves nothing for the next start', async () => {
    const f = setUp();
    const intake = new IntakeService({ store: f.store, staging: f.staging, environmentId: LOCAL.id });
    const raw = Buffer.from(
      writeRde011(uniqueOrder({}, 'REC'), {
        controlId: 'REC-2',
        sendingApplication: 'EPR-7',
        sendingFacility: 'CLINIC-H',
      }),
    );
    const result = await intake.handle(raw, '127.0.0.1:5001');
    expect(result.code).toBe('AA');
    await intake.close();
    expect(count(f, 'SELECT count(*) AS n FROM staged_orders')).toBe(1);
    expect(intake.repo.unstaged()).toEqual([]);
  });

  it('stages at the next start a message whose staging failed, though later ones were staged after it', async () => {
    const f = setUp();
    const intake = new IntakeService({ store: f.store, staging: f.staging, environmentId: LOCAL.id });
    const raw = (controlId: string) =>
      Buffer.from(
        writeRde011(uniqueOrder({}, 'REC'), { controlId, sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' }),
      );
    const first = await intake.handle(raw('REC-3'), '127.0.0.1:5001');
    // Its staging fails (a fault in its own rows): the others' staging goes on without it.
    const setBatch = intake.repo.setBatch.bind(intake.repo);
    intake.repo.setBatch = (id, batchId) => {
      if (id === first.recordId) throw new Error('disk fault');
      return setBatch(id, batchId);
    };
    await intake.handle(raw('REC-4'), '127.0.0.1:5001');
    await intake.staged();
    intake.repo.setBatch = setBatch;
    await intake.handle(raw('REC-5'), '127.0.0.1:5001');
    await intake.close();
    expect(count(f, 'SELECT count(*) AS n FROM staged_orders')).toBe(2);
    expect(intake.repo.unstaged().map((record) => record.controlId)).toEqual(['REC-3']);

    const restarted = new IntakeService({ store: f.store, staging: f.staging, environmentId: LOCAL.id });
    expect(await restarted.recover()).toBe(1);
    await restarted.close();
    expect(count(f, 'SELECT count(*) AS n FROM staged_orders')).toBe(3);
    expect(restarted.repo.find(LOCAL.id, 'EPR-7^CLINIC-H', 'REC-3')!.batchId).not.toBeNull();
    expect(restarted.repo.unstaged()).toEqual([]);
  });
});
