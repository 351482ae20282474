import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { HL7_PROFILE, hl7File, stagingFixture, uniqueOrder, type StagingFixture } from './testing/staging-fixtures.js';

// MSH-11 T (training) or D (debugging) is a test system's message: a live environment refuses it (hl7.notLive, an
// error), but in the local sandbox, where a supplier tries Rx Batch out with its test system (public samples send
// T too), it is read with the same words as a warning, so the batch can be accepted and sent to the sandbox.

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

const REMOTE = {
  ...LOCAL,
  id: 'pharmacy-live',
  name: 'Pharmacy (live)',
  kind: 'remote' as const,
  apiBaseUrl: 'https://orders.pharmacy.example/api',
  issuer: 'https://id.pharmacy.example',
};

/** An HL7 file of one order whose MSH-11 is `processingId`. */
const testMessage = (processingId: string) =>
  hl7File([uniqueOrder({}, 'TEST')]).replace(/^(MSH(\|[^|\r]*){9})\|[^|\r]*\|/, `$1|${processingId}|`);

async function staged(environmentId: string, content: string) {
  const f = fixture!;
  f.staging.saveProfile(HL7_PROFILE);
  const outcome = await f.staging.importFile({
    environmentId,
    path: f.file(`${environmentId}.hl7`, content),
    profile: HL7_PROFILE.name,
  });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
  return f.staging.getBatch(outcome.batchId, { limit: 5 }).orders[0]!;
}

describe('messages from a test system (MSH-11 T, D)', () => {
  it('are refused as orders in a live environment and read with a warning in the local sandbox', async () => {
    fixture = stagingFixture();
    fixture.store.environments.upsert(REMOTE);
    const content = testMessage('T');
    expect(content.split('\r')[0]!.split('|')[10]).toBe('T');

    const live = await staged(REMOTE.id, content);
    expect(live.valid).toBe(false);
    expect(live.problems.filter((p) => p.code === 'hl7.notLive')).toMatchObject([{ severity: 'error' }]);

    const sandbox = await staged(LOCAL.id, content);
    expect(sandbox.problems.map((p) => p.code)).toEqual(['hl7.notLive']);
    expect(sandbox.valid).toBe(true);
    const [warning] = sandbox.problems.filter((p) => p.code === 'hl7.notLive');
    expect(warning).toMatchObject({ severity: 'warning' });
    expect(warning!.text).toContain("MSH-11 (processing id) is 'T', training");
    expect(warning!.text).toContain('a live environment refuses it');
  });
});
