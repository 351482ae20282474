import { afterEach, describe, expect, it } from 'vitest';
import { stagingCalls } from '../../../shared/staging-contract.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { HL7_PROFILE, hl7File, stagingFixture, uniqueOrder, type StagingFixture } from './testing/staging-fixtures.js';

// Issue #4/#6 for HL7: a profile saved from an import keeps the file's sender and is chosen for the next file from
// that sender; a named profile always wins; "no saved profile" reads the file with the standard map.

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

const EPR = { application: 'EPR-7', facility: 'CLINIC-H' };
const EPR_SENDER = { ...EPR, messageType: 'RDE^O11' };

async function staged(f: StagingFixture, path: string, extra: { profile?: string; autoProfile?: boolean } = {}) {
  const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path, ...extra });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('HL7 profiles chosen by the sender', () => {
  it('saves the import’s sender with the profile and reads the next file from that sender with it', async () => {
    const f = (fixture = stagingFixture());
    const first = await staged(f, f.file('first.hl7', hl7File([uniqueOrder(), uniqueOrder()], 'NW', EPR)));
    expect(first).toMatchObject({ valid: 0, invalid: 2 });
    expect(first.summary.hl7Sender).toEqual(EPR_SENDER);
    expect(first.summary.profileChoice).toMatchObject({ via: 'none' });

    // Saved from the batch, as the HL7 mapping step does: the sender comes from the import's report.
    const saved = f.staging.saveProfile({ ...HL7_PROFILE, name: 'EPR clinic' }, first.batchId);
    expect(saved.profile).toMatchObject({ hl7Sender: EPR_SENDER });
    // Read back from its SQLite row.
    expect(f.store.mappingProfiles.get('EPR clinic')?.profile.hl7Sender).toEqual(EPR_SENDER);

    const next = await staged(f, f.file('next.hl7', hl7File([uniqueOrder()], 'NW', EPR)));
    expect(next).toMatchObject({ valid: 1, invalid: 0 });
    expect(next.summary).toMatchObject({
      profile: 'EPR clinic',
      profileChoice: {
        via: 'sender',
        reason: "profile 'EPR clinic' was chosen for sending application 'EPR-7' at facility 'CLINIC-H' (RDE^O11)",
      },
    });
    // The batch keeps why, for the preview opened later.
    expect(f.staging.getBatch(next.batchId, { limit: 1 }).batch.summary?.profileChoice?.via).toBe('sender');

    // Another facility: not this profile.
    const other = await staged(f, f.file('other.hl7', hl7File([uniqueOrder()], 'NW', { ...EPR, facility: 'ELSE' })));
    expect(other.summary.profile).toBeUndefined();
    expect(other.invalid).toBe(1);

    // "No saved profile": the same file with the standard map.
    const none = await staged(f, f.file('none.hl7', hl7File([uniqueOrder()], 'NW', EPR)), { autoProfile: false });
    expect(none.summary.profile).toBeUndefined();
    expect(none.summary.profileChoice).toEqual({
      via: 'none',
      reason: 'no saved profile was asked for: the standard HL7 field map was used',
    });
    expect(none.invalid).toBe(1);
  });

  it('lets a named profile win, keeps the sender when a profile is saved again, and asks when several fit', async () => {
    const f = (fixture = stagingFixture());
    f.staging.saveProfile({ ...HL7_PROFILE, name: 'EPR clinic', hl7Sender: EPR_SENDER });
    f.staging.saveProfile({ ...HL7_PROFILE, name: 'plain', constants: { paymentType: 'Account' } });

    const named = await staged(f, f.file('named.hl7', hl7File([uniqueOrder()], 'NW', EPR)), { profile: 'plain' });
    expect(named.summary).toMatchObject({ profile: 'plain', profileChoice: { via: 'explicit' } });
    expect(named.invalid).toBe(1); // plain has no courier or currency

    // Saved again (new constants, no sender given, no batch): the sender stays.
    f.staging.saveProfile({ ...HL7_PROFILE, name: 'EPR clinic', constants: { ...HL7_PROFILE.constants } });
    expect(f.store.mappingProfiles.get('EPR clinic')?.profile.hl7Sender).toEqual(EPR_SENDER);

    // A second profile for the same sender: not a guess, a question.
    f.staging.saveProfile({ ...HL7_PROFILE, name: 'EPR clinic (test)', hl7Sender: EPR_SENDER });
    const asked = await staged(f, f.file('asked.hl7', hl7File([uniqueOrder()], 'NW', EPR)));
    expect(asked.summary.profile).toBeUndefined();
    expect(asked.summary.profileChoice).toMatchObject({
      via: 'several',
      candidates: ['EPR clinic', 'EPR clinic (test)'],
    });
  });

  it('warns when a profile is saved for a sender other saved profiles are for, naming them', async () => {
    const f = (fixture = stagingFixture());
    const first = f.staging.saveProfile({ ...HL7_PROFILE, name: 'EPR clinic', hl7Sender: EPR_SENDER });
    expect(first.senderWarning).toBeNull();
    // Another sender's profile and a profile without a sender are not the same sender.
    const elsewhere = { ...EPR_SENDER, facility: 'ELSE' };
    expect(f.staging.saveProfile({ ...HL7_PROFILE, name: 'Else', hl7Sender: elsewhere }).senderWarning).toBeNull();
    expect(f.staging.saveProfile({ ...HL7_PROFILE, name: 'plain' }).senderWarning).toBeNull();
    // Saving the same profile again is not a second one.
    expect(f.staging.saveProfile({ ...HL7_PROFILE, name: 'EPR clinic' }).senderWarning).toBeNull();

    // Same sender, told apart only by case and spaces: the importer would ask, so the save says so now.
    const second = f.staging.saveProfile({
      ...HL7_PROFILE,
      name: 'EPR clinic (test)',
      hl7Sender: { ...EPR_SENDER, application: ' epr-7 ' },
    });
    expect(second.senderWarning).toEqual({
      otherProfiles: ['EPR clinic'],
      message:
        "profile 'EPR clinic' is also saved for sending application ' epr-7 ' at facility 'CLINIC-H' (RDE^O11): " +
        'files from this sender will ask which profile to use until only one is saved for it',
    });
    // The answer is what the contract's `profiles.save` returns (checked by its output schema).
    expect(stagingCalls['profiles.save'].output.parse(second).senderWarning?.otherProfiles).toEqual(['EPR clinic']);

    // A third, saved from an import of that sender (the sender comes from the batch): both others are named.
    const imported = await staged(f, f.file('third.hl7', hl7File([uniqueOrder()], 'NW', EPR)));
    const third = f.staging.saveProfile({ ...HL7_PROFILE, name: 'EPR 3' }, imported.batchId);
    expect(third.senderWarning?.otherProfiles).toEqual(['EPR clinic', 'EPR clinic (test)']);
    expect(third.senderWarning?.message).toMatch(/^profiles 'EPR clinic', 'EPR clinic \(test\)' are also saved for/);
    // Saved all the same: the warning is advice, and the next file from the sender asks.
    const asked = await staged(f, f.file('asked.hl7', hl7File([uniqueOrder()], 'NW', EPR)));
    expect(asked.summary.profileChoice).toMatchObject({
      via: 'several',
      candidates: ['EPR 3', 'EPR clinic', 'EPR clinic (test)'],
    });
  });
});
