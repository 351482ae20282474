import { afterEach, describe, expect, it } from 'vitest';
import { HL7_PROFILE, stagingFixture, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { IntakeService } from './intake-service.js';

// A lab order (ORM^O01 with ORC and OBR, no RXO or RXE) sent to the pharmacy's listener: it can never become an
// order as sent, so AE (as for any such message, README "One message", step 5) with its one ERR saying what it is,
// not one ERR per pharmacy field it never fills. Under `send`, so an AA would have let the sender think it was taken.

let fixture: StagingFixture | undefined;
let intake: IntakeService | undefined;
afterEach(async () => {
  await intake?.close();
  fixture?.close();
  intake = undefined;
  fixture = undefined;
});

const LAB = [
  'MSH|^~\\&|EPR-3|CLINIC-T|CLOUDRX|PHARMACY|20261126101500||ORM^O01|LAB-1|P|2.3.1',
  'PID|||12001||Jones^John^^^Mr.||19670824|M|||123 West St.^^Denver^CO^80020^USA',
  'ORC|NW|20060307110114',
  'OBR|1|20060307110114||003038^Urinalysis^L|||20060307110114',
].join('\r');

describe('live intake of a lab order', () => {
  it('answers AE with one ERR naming it a lab order, and queues nothing', async () => {
    fixture = stagingFixture();
    fixture.staging.saveProfile({
      ...HL7_PROFILE,
      hl7Sender: { application: 'EPR-3', facility: 'CLINIC-T', messageType: 'ORM^O01' },
    });
    intake = new IntakeService({
      store: fixture.store,
      staging: fixture.staging,
      environmentId: LOCAL.id,
      rules: { mode: 'send' },
    });
    const result = await intake.handle(Buffer.from(LAB), '127.0.0.1:40000');
    await intake.staged();
    expect(result.code).toBe('AE');
    const errors = result.ack.split('\r').filter((segment) => segment.startsWith('ERR|'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('not a pharmacy order');
    const queued = fixture.store.db.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number };
    expect(queued.n).toBe(0);
  });
});
