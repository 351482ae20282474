import { mkdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Problem } from '../model/imported-order.js';
import { ACCEPTED_MESSAGE_TYPES } from '../importing/hl7-field-map.js';
import type { Logger } from '../platform/logger.js';
import type { StagingService } from '../staging/staging-service.js';
import { IntakeRepo, type IntakeMessageRecord } from '../store/intake-repo.js';
import type { Store } from '../store/store.js';
import { buildAck, readMessageHeader, type AckCode, type AckError, type MessageHeader } from './hl7-ack.js';

/**
 * What the intake does with one received message, whichever listener it came through: record it durably, stage
 * it with the same importer and staging as a file import, accept it into the outbox when the sender's rule says so,
 * audit it, and answer with the HL7 ACK. Messages are handled one at a time (a queue), so a resend racing its
 * original on another connection is answered from the first one's record.
 */

/** How a sender's messages are staged: accepted into the outbox at once, or left for a person to review. */
export type IntakeMode = 'send' | 'hold';

export interface IntakeRules {
  /** For senders not named below. Default `hold`. */
  mode?: IntakeMode;
  /** By sender as `APP^FACILITY` (MSH-3^MSH-4, first components), or `APP` alone. */
  senders?: Record<string, IntakeMode>;
}

export interface IntakeServiceOptions {
  store: Store;
  staging: StagingService;
  environmentId: string;
  rules?: IntakeRules;
  logger?: Logger;
  /** Woken when something was accepted (the staging service already wakes the outbox). */
  onAccepted?(batchId: number): void;
  /** Each message's outcome, for progress lines. */
  onOutcome?(outcome: IntakeResult): void;
}

export interface IntakeResult {
  code: AckCode;
  ack: string;
  /** Answered from an earlier record: the same sender and control id again. */
  resent: boolean;
  batchId: number | null;
  recordId: number | null;
}

/** Problems that mean the message can never become an order as sent (the sender must send another): AE. */
const NEVER_AN_ORDER = new Set([
  'hl7.unreadable',
  'hl7.orderControl',
  'hl7.multipleOrders',
  'hl7.noMessages',
  'hl7.messageTooLarge',
  'hl7.segmentTooLarge',
]);

const SPOOL_DIR = 'intake-spool';

export function fileNameFor(recordId: number): string {
  return `intake-${recordId}.hl7`;
}

export class IntakeService {
  readonly repo: IntakeRepo;
  readonly #options: IntakeServiceOptions;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: IntakeServiceOptions) {
    this.#options = options;
    this.repo = new IntakeRepo(options.store.db, options.store.now);
  }

  get environmentId(): string {
    return this.#options.environmentId;
  }

  modeFor(sender: string): IntakeMode {
    const rules = this.#options.rules ?? {};
    const app = sender.split('^')[0] ?? '';
    return rules.senders?.[sender] ?? rules.senders?.[app] ?? rules.mode ?? 'hold';
  }

  /** Handles one message; resolves with the ACK to write (after the message and its outcome are on disk). */
  handle(raw: Buffer, peer: string): Promise<IntakeResult> {
    const run = this.#queue.then(() => this.#handle(raw, peer));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Messages recorded but never answered (the process died between storing one and writing its ACK): staged
   * now (once: a batch already made for one is reused), so nothing received is lost even if its sender never
   * resends. Run at start, before listening.
   */
  async recover(): Promise<number> {
    const pending = this.repo.unanswered();
    for (const record of pending) {
      await this.#enqueue(() => this.#process(record, readMessageHeader(record.raw.toString('utf8'))));
    }
    return pending.length;
  }

  /** A refusal the listener made before any message was read (a peer not allowed, a frame too large or dropped). */
  recordRefusal(refusal: { kind: 'peer' | 'tooLarge' | 'abandoned'; peer: string }): void {
    const { store, environmentId } = this.#options;
    if (!store.isOpen) return;
    store.audit.append({
      actor: 'system',
      action: refusal.kind === 'peer' ? 'intake.peer.refused' : 'intake.frame.refused',
      environmentId,
      details: { peer: refusal.peer, outcome: refusal.kind },
    });
  }

  /** Waits for the message being handled; later ones are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
  }

  #enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #handle(raw: Buffer, peer: string): Promise<IntakeResult> {
    if (this.#closed) throw new Error('the intake is stopping');
    const { store, environmentId } = this.#options;
    const header = readMessageHeader(raw.toString('utf8'));
    const sender = header?.sender ?? '';
    const controlId = header?.controlId ?? '';
    const earlier = header && controlId !== '' ? this.repo.find(environmentId, sender, controlId) : undefined;
    if (earlier && earlier.outcome !== 'received' && earlier.ack) {
      store.audit.append({
        actor: 'system',
        action: 'intake.resent',
        environmentId,
        batchId: earlier.batchId,
        details: { peer, controlId, sender, outcome: earlier.outcome },
      });
      const result: IntakeResult = {
        code: earlier.outcome,
        ack: earlier.ack,
        resent: true,
        batchId: earlier.batchId,
        recordId: earlier.id,
      };
      this.#options.onOutcome?.(result);
      return result;
    }
    // Durable before anything else: the store's connection commits with synchronous=FULL (fsync of the WAL).
    const record = earlier ?? this.repo.receive({ environmentId, channel: 'mllp', sender, controlId, peer, raw });
    return this.#process(record, header);
  }

  async #process(record: IntakeMessageRecord, header: MessageHeader | undefined): Promise<IntakeResult> {
    const { environmentId } = this.#options;
    const refusal = refusalOf(header);
    if (refusal) return this.#answer(record, header, 'AR', [refusal], null);

    let batchId = this.repo.batchForFile(environmentId, fileNameFor(record.id)) ?? null;
    if (batchId === null) {
      const staged = await this.#stage(record);
      if (staged.status === 'refused') {
        const errors = staged.problems.map((p) => ({ hl7Code: '207' as const, text: p.text }));
        return this.#answer(record, header, 'AR', errors, null);
      }
      batchId = staged.batchId;
    }
    const { orders } = this.#options.store.stagedOrders.page({ batchId, offset: 0, limit: 20 });
    const errors: AckError[] = [];
    let never = false;
    for (const order of orders) {
      for (const problem of order.problems) {
        if (problem.severity !== 'error') continue;
        if (NEVER_AN_ORDER.has(problem.code)) never = true;
        errors.push(toAckError(problem));
      }
    }
    if (orders.length === 0) {
      never = true;
      errors.push({ hl7Code: '207', text: 'The message holds no order.' });
    }
    if (never) return this.#answer(record, header, 'AE', errors, batchId);
    const staged = batchId;
    // Accepted in the same transaction as the outcome: one commit (one fsync) for both, and never one without the other.
    const accept =
      this.modeFor(record.sender) === 'send'
        ? () => {
            const outcome = this.#options.staging.accept(staged);
            if (outcome.accepted > 0 || outcome.cancelled > 0) this.#options.onAccepted?.(staged);
          }
        : undefined;
    return this.#answer(record, header, 'AA', [], batchId, accept);
  }

  async #stage(record: IntakeMessageRecord) {
    const { store, staging, environmentId } = this.#options;
    // The importer reads files: the message goes through a private spool file named after its record, so a
    // batch already made for it (before a crash) is found by that name.
    const dir = join(store.dataDir, SPOOL_DIR);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, fileNameFor(record.id));
    await writeFile(path, record.raw, { mode: 0o600 });
    try {
      const outcome = await staging.importFile({ environmentId, path, route: 'v1' });
      if (outcome.status === 'cancelled') throw new Error('the import was cancelled');
      return outcome;
    } finally {
      await rm(path, { force: true });
    }
  }

  #answer(
    record: IntakeMessageRecord,
    header: MessageHeader | undefined,
    code: AckCode,
    errors: AckError[],
    batchId: number | null,
    before?: () => void,
  ): IntakeResult {
    const { store, environmentId } = this.#options;
    const ack = buildAck(header, { code, errors, now: store.now() });
    const accepted = code === 'AA' && batchId !== null && this.modeFor(record.sender) === 'send';
    store.inTransaction(() => {
      before?.();
      this.repo.answer(record.id, code, ack, batchId);
      store.audit.append({
        actor: 'system',
        action: accepted ? 'intake.accepted' : code === 'AA' ? 'intake.staged' : 'intake.refused',
        environmentId,
        batchId,
        details: {
          peer: record.peer,
          controlId: record.controlId,
          sender: record.sender,
          outcome: code,
          ...(errors.length > 0 ? { invalidCount: errors.length } : {}),
        },
      });
    });
    if (code !== 'AA') {
      this.#options.logger?.warn('intake: message not accepted', {
        peer: record.peer,
        controlId: record.controlId,
        outcome: code,
      });
    }
    const result: IntakeResult = { code, ack, resent: false, batchId, recordId: record.id };
    this.#options.onOutcome?.(result);
    return result;
  }
}

/** AR: not HL7, an unsupported message type or version. */
function refusalOf(header: MessageHeader | undefined): AckError | undefined {
  if (!header) return { hl7Code: '100', text: 'This is not an HL7 v2 message: it does not start with an MSH segment.' };
  if (!(ACCEPTED_MESSAGE_TYPES as readonly string[]).includes(header.messageType)) {
    return {
      hl7Code: '200',
      location: 'MSH^1^9',
      text: `Message type ${header.messageType || '(none)'} is not accepted; only ${ACCEPTED_MESSAGE_TYPES.join(', ')} carry orders.`,
    };
  }
  if (!/^2\.[1-9](\.\d+)?$/.test(header.version)) {
    return {
      hl7Code: '203',
      location: 'MSH^1^12',
      text: `HL7 version ${header.version || '(none)'} is not supported; send HL7 v2 (2.1 to 2.9).`,
    };
  }
  if (header.controlId === '') {
    return { hl7Code: '101', location: 'MSH^1^10', text: 'MSH-10 (message control id) is empty.' };
  }
  return undefined;
}

function toAckError(problem: Problem): AckError {
  const hl7Code: AckError['hl7Code'] = problem.code.startsWith('hl7.') ? '100' : problem.field ? '102' : '207';
  const text = problem.field ? `${problem.field}: ${problem.text}` : problem.text;
  return { hl7Code, text };
}
