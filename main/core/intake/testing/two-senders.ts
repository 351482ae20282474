import { HL7_PROFILE, stagingFixture, type StagingFixture } from '../../staging/testing/staging-fixtures.js';
import { LOCAL } from '../../store/testing/store-fixtures.js';
import { IntakeService, type IntakeRules } from '../intake-service.js';
import { MllpListener } from '../mllp-listener.js';
import { stopMllpIntake, stoppedAfterEachTest } from './mllp-intake.js';

/**
 * Two senders (MSH-3, MSH-4), each with an HL7 profile of its own, for tests of what one sender may do to another's
 * orders (docs/security.md, findings 22 and 24). Typed alike, so a helper taking one takes the other.
 */
export const SENDER_A: { sendingApplication: string; sendingFacility: string } = {
  sendingApplication: 'EPR-7',
  sendingFacility: 'CLINIC-H',
};
export const SENDER_B: typeof SENDER_A = { sendingApplication: 'EPR-9', sendingFacility: 'CLINIC-K' };

/** A staging fixture with the profiles EPR-A and EPR-B saved, reading SENDER_A's and SENDER_B's RDE^O11. */
export function twoSendersFixture(): StagingFixture {
  const fixture = stagingFixture();
  for (const [name, sender] of [
    ['EPR-A', SENDER_A],
    ['EPR-B', SENDER_B],
  ] as const) {
    fixture.staging.saveProfile({
      ...HL7_PROFILE,
      name,
      hl7Sender: { application: sender.sendingApplication, facility: sender.sendingFacility, messageType: 'RDE^O11' },
    });
  }
  return fixture;
}

/** An intake over twoSendersFixture, behind a real MLLP listener on a free loopback port. */
export interface TwoSendersIntake {
  fixture: StagingFixture;
  intake: IntakeService;
  listener: MllpListener;
  port: number;
}

/** Starts the intake for both senders under `rules`, staging with the fixture's own staging service. */
export async function startTwoSendersIntake(rules: IntakeRules): Promise<TwoSendersIntake> {
  const fixture = twoSendersFixture();
  const intake = new IntakeService({ store: fixture.store, staging: fixture.staging, environmentId: LOCAL.id, rules });
  const listener = new MllpListener({ port: 0, handle: (raw, peer) => intake.handle(raw, peer) });
  const { port } = await listener.listen();
  return { fixture, intake, listener, port };
}

/** startTwoSendersIntake, each intake it starts stopped after its test (stoppedAfterEachTest, mllp-intake.ts). */
export function twoSendersIntakePerTest(): typeof startTwoSendersIntake {
  return stoppedAfterEachTest(startTwoSendersIntake, stopMllpIntake);
}

/** The ACK with its own MSH-7 (time) and MSH-10 (control id) blanked: what may differ between two answers. */
export function withoutOwnIds(ack: string): string {
  const [msh, ...rest] = ack.split('\r');
  const fields = msh!.split('|');
  fields[6] = '';
  fields[9] = '';
  return [fields.join('|'), ...rest].join('\r');
}
