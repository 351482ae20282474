import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../model/deep-frozen.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { chooseHl7Profile } from './hl7-profile-choice.js';

// The profile an HL7 message is read with is compiled once while it is the stored (deep-frozen) one: what each
// message's read reports must still name that message's file, and a profile that can change is compiled again.

const SENDER = { application: 'EPR-7', facility: 'CLINIC-H', messageType: 'RDE^O11' };

const profile = (constants: Record<string, string>): MappingProfile => ({
  name: 'EPR',
  columns: {},
  constants,
  valueMaps: {},
  hl7Sender: SENDER,
});

describe('the HL7 profile chosen for a message', () => {
  it('names each message in the problems of a profile compiled once', () => {
    const stored = deepFreeze(profile({ paymentType: 'Account', notAField: 'x' }));
    const first = chooseHl7Profile({ profiles: [stored] }, SENDER, 'CTL-1.hl7');
    const second = chooseHl7Profile({ profiles: [stored] }, SENDER, 'CTL-2.hl7');
    expect(first.problems.map((p) => [p.code, p.file])).toEqual([['profile.unknownField', 'CTL-1.hl7']]);
    expect(second.problems.map((p) => [p.code, p.file])).toEqual([['profile.unknownField', 'CTL-2.hl7']]);
    expect(second.compiled.problems[0]!.text).toContain('"notAField"');
    expect(second.compiled.constants).toEqual(first.compiled.constants);
  });

  it('compiles a profile that is not deep-frozen again at each message, so a change to it is read', () => {
    const editable = profile({ paymentType: 'Account' });
    const before = chooseHl7Profile({ profiles: [editable] }, SENDER, 'a.hl7').compiled;
    editable.constants.paymentType = 'Card';
    const after = chooseHl7Profile({ profiles: [editable] }, SENDER, 'b.hl7').compiled;
    expect(before.constants.filter(Boolean)).toEqual(['Account']);
    expect(after.constants.filter(Boolean)).toEqual(['Card']);
  });

  it('treats an object frozen only at its top as changeable (what it holds may not be frozen)', () => {
    const shallow = Object.freeze(profile({ paymentType: 'Account' }));
    chooseHl7Profile({ profiles: [shallow] }, SENDER, 'a.hl7');
    shallow.constants.paymentType = 'Card';
    const after = chooseHl7Profile({ profiles: [shallow] }, SENDER, 'b.hl7').compiled;
    expect(after.constants.filter(Boolean)).toEqual(['Card']);
  });
});
