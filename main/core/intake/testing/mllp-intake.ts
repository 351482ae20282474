import { afterEach } from 'vitest';
import { StagingService } from '../../staging/staging-service.js';
import { HL7_PROFILE, stagingFixture, type StagingFixture } from '../../staging/testing/staging-fixtures.js';
import { inProcessRowSink } from '../../store/staged-batch-writer.js';
import { LOCAL } from '../../store/testing/store-fixtures.js';
import { IntakeService, type IntakeRules } from '../intake-service.js';
import type { ListenerRefusal } from '../listener-refusal.js';
import { MllpListener, type MllpListenerOptions } from '../mllp-listener.js';

/** The sender whose HL7 profile startMllpIntake saves (MSH-3, MSH-4): its messages are read with that profile. */
export const MLLP_SENDER = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' } as const;

/** A real MLLP listener on a free loopback port over a real store, as `serve` runs it, and what it logged. */
export interface RunningIntake {
  fixture: StagingFixture;
  intake: IntakeService;
  listener: MllpListener;
  port: number;
  logs: string[];
  /** What the listener handed `onRefusal`, in order. */
  refusals: ListenerRefusal[];
}

/**
 * Starts the intake for the sender EPR-7^CLINIC-H (its HL7 profile saved) under `rules`, staging on this thread as
 * `serve` does, with `listener`'s options (allow-list, size limit, TLS, idle timeout, connection cap) passed on.
 */
export async function startMllpIntake(
  rules: IntakeRules,
  listener: Pick<MllpListenerOptions, 'allow' | 'maxMessageBytes' | 'tls' | 'idleTimeoutMs' | 'maxConnections'> = {},
): Promise<RunningIntake> {
  const fixture = stagingFixture();
  fixture.staging.saveProfile({
    ...HL7_PROFILE,
    name: 'EPR',
    hl7Sender: { application: 'EPR-7', facility: 'CLINIC-H', messageType: 'RDE^O11' },
  });
  const staging = new StagingService({
    store: fixture.store,
    codeListsFor: (id) => fixture.store.environments.get(id)!.codeLists,
    openRowSink: inProcessRowSink,
  });
  const logs: string[] = [];
  const line = (message: string, fields?: object) => logs.push(`${message} ${JSON.stringify(fields ?? {})}`);
  const logger = { info: line, warn: line, error: line };
  const refusals: ListenerRefusal[] = [];
  const intake = new IntakeService({ store: fixture.store, staging, environmentId: LOCAL.id, rules, logger });
  const running = new MllpListener({
    port: 0,
    handle: (raw, peer) => intake.handle(raw, peer),
    onRefusal: (refusal) => {
      refusals.push(refusal);
      intake.recordRefusal(refusal);
    },
    logger,
    ...listener,
  });
  const { port } = await running.listen();
  return { fixture, intake, listener: running, port, logs, refusals };
}

/** Stops an intake a test started: the listener, then the intake (staging what waits), then the store. */
export async function stopMllpIntake(running: Pick<RunningIntake, 'listener' | 'intake' | 'fixture'>): Promise<void> {
  await running.listener.close();
  await running.intake.close();
  running.fixture.close();
}

/**
 * For a file whose tests start intakes: `start`, each intake it starts stopped by `stop` after its test (passed or
 * failed), the last started first. Call it at the top of the file: vitest runs after-hooks last registered first, so a
 * hook the file registers after it runs before the stop.
 */
export function stoppedAfterEachTest<A extends unknown[], R>(
  start: (...args: A) => Promise<R>,
  stop: (running: R) => Promise<void>,
): (...args: A) => Promise<R> {
  const started: R[] = [];
  afterEach(async () => {
    for (const running of started.splice(0).reverse()) await stop(running);
  });
  return async (...args) => {
    const running = await start(...args);
    started.push(running);
    return running;
  };
}

/** startMllpIntake, each intake it starts stopped after its test (stoppedAfterEachTest). */
export function mllpIntakePerTest(): typeof startMllpIntake {
  return stoppedAfterEachTest(startMllpIntake, stopMllpIntake);
}

/** Orders staged so far (one a message staged). */
export function stagedCount(running: RunningIntake): number {
  return (running.fixture.store.db.prepare('SELECT count(*) AS n FROM staged_orders').get() as { n: number }).n;
}
