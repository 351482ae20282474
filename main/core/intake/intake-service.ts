import type { ImportedOrder, Problem } from '../model/imported-order.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { ACCEPTED_MESSAGE_TYPES } from '../importing/hl7-field-map.js';
import { isAcceptedMessageType } from '../importing/hl7-message-types.js';
import { NOT_AN_ORDER_CODES } from '../model/imported-order.js';
import type { PeerRefusalAuditReason } from '../model/audit-details.js';
import type { Logger } from '../platform/logger.js';
import type { CancelCheck } from '../staging/accept-batch.js';
import type { StagingService } from '../staging/staging-service.js';
import { GroupCommit } from '../store/group-commit.js';
import { IntakeRepo, type IntakeMessageRecord } from '../store/intake-repo.js';
import type { Store } from '../store/store.js';
import { WalCheckpointer } from '../store/wal-checkpointer.js';
import {
  buildAck,
  errorLocation,
  readMessageHeader,
  readMessageHeaderOf,
  unreadableHeaderOf,
  type AckCode,
  type AckError,
  type MessageHeader,
} from './hl7-ack.js';
import { PARTIAL_CANCEL } from '../importing/group-cancel.js';
import { groupItemsOfMessage } from '../importing/hl7-placer-group.js';
import { requiredFieldPath } from '../importing/hl7-required.js';
import { groupItemsOfOrder } from '../staging/group-items.js';
import { profileFieldMissing } from '../staging/hl7-route.js';
import { senderText } from './ack-text.js';
import {
  cancelNotActedOn,
  otherSendersOrder,
  OTHER_SENDERS_ORDER,
  partialCancelNotActedOn,
  sentBy,
  UNKNOWN_ORDER,
  type HeldCancel,
} from './cancel-origin.js';
import type { ListenerRefusal, PeerRefusalReason } from './listener-refusal.js';
import { appendToDayBatch, dayBatchName, readMessage, type ReadMessage } from './message-staging.js';
import { isSameMessage } from './resend-check.js';
import {
  bindingOf,
  clinicNotActedOn,
  clinicNotBoundProblem,
  mayActFor,
  peerRefusal,
  type SenderBinding,
} from './sender-binding.js';

/**
 * What the intake does with one received message, whichever listener it came through: read it with the same
 * importer as a file import (in memory) and decide its ACK; then, in ONE transaction, append it to its sender's
 * batch of the day, accept its orders into the outbox when the sender's rule says so, record it with its outcome
 * and ACK, and audit it; answer once that commit is durable. Commits are grouped (GroupCommit): each commits without
 * waiting for the disk, and one fsync off the event loop covers every message that arrived meanwhile, so
 * connections share fsyncs while no ACK is written before its own message is on disk. A resend (same sender and
 * MSH-10) is answered from the first one's record, also when it races the first on another connection.
 */

/** The listener's reason as the audit log keeps it: `allow-list` reads as what refused the peer, `allow` would not. */
const AUDITED_REFUSAL_REASON: Record<PeerRefusalReason, PeerRefusalAuditReason> = {
  allow: 'allow-list',
  http: 'http',
  notMllp: 'not-mllp',
  tls: 'tls',
};

/** How a sender's messages are staged: accepted into the outbox at once, or left for a person to review. */
export type IntakeMode = 'send' | 'hold';

export interface IntakeRules {
  /** For senders not named below. Default `hold`. */
  mode?: IntakeMode;
  /** By sender as `APP^FACILITY` (MSH-3^MSH-4, first components), or `APP` alone. */
  senders?: Record<string, IntakeMode>;
}

/** A sender's rule: its `APP^FACILITY`'s, else its `APP`'s, else the default (`hold` when none is given). */
export function ruleFor(rules: IntakeRules, sender: string): IntakeMode {
  const app = sender.split('^')[0] ?? '';
  return rules.senders?.[sender] ?? rules.senders?.[app] ?? rules.mode ?? 'hold';
}

export interface IntakeServiceOptions {
  store: Store;
  staging: StagingService;
  environmentId: string;
  rules?: IntakeRules;
  logger?: Logger;
  /** Woken when something was accepted (the staging service already wakes the outbox). */
  onAccepted?(batchId: number): void;
  /** Messages were appended to this batch (after the staging commit): the preview and enrichment look again. */
  onStaged?(batchId: number): void;
  /** Each message's outcome, for progress lines. */
  onOutcome?(outcome: IntakeResult): void;
}

export interface IntakeResult {
  code: AckCode;
  ack: string;
  /** Answered from an earlier record: the same sender and control id again. */
  resent: boolean;
  /** The batch it was staged into, when known at the answer (a resend of a staged message); a new message is
   * staged after its ACK. */
  batchId: number | null;
  recordId: number | null;
}

/** Problems that mean the message can never become an order as sent (the sender must send another): AE. */
const NEVER_AN_ORDER = new Set([
  // Unreadable, a header alone, no RXE or RXO item (a lab order, an ORM^O01 with OBR, above all): no order at all.
  ...NOT_AN_ORDER_CODES,
  'hl7.orderControl',
  'hl7.noOrderControl',
  'hl7.noOrc',
  'hl7.multipleOrders',
  'hl7.noMessages',
  'hl7.messageTooLarge',
  'hl7.segmentTooLarge',
  // A test system's message (an error outside the local sandbox) and a compound item: no preview edit makes either
  // an order to dispense as sent.
  'hl7.notLive',
  'hl7.compound',
  // A patient the sender records as deceased, a new order its sender has stopped: neither field is part of the order.
  'hl7.patientDeceased',
  'hl7.orderStopped',
]);

/** How long an answered message may wait to be staged with those that follow it, and how many may wait. */
const STAGING_WINDOW_MS = 20;
const STAGING_RUN = 200;

/** The file name of the batch an earlier version of the intake made for one recorded message (recovery reuses it). */
export function fileNameFor(recordId: number): string {
  return `intake-${recordId}.hl7`;
}

export class IntakeService {
  readonly repo: IntakeRepo;
  readonly #options: IntakeServiceOptions;
  /** Each message's transaction commits without waiting for the disk; one fsync then covers all that arrived. */
  readonly #commits: GroupCommit;
  /** The WAL copied into the database file on a thread of its own, not in a commit on the event loop. */
  readonly #checkpoints: WalCheckpointer;
  readonly #inflight = new Set<Promise<unknown>>();
  /** Answered messages waiting to be staged, in the order they came (see #stageWaiting). */
  #waiting: Waiting[] = [];
  #stagingScheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  /** The scheduled staging is the next turn of the loop (enough messages wait), not the end of the window. */
  #stagingSoon = false;
  #stagedWaiters: Array<() => void> = [];
  #closed = false;
  /** Whether the environment is the local sandbox (its kind never changes): read once, not per message. */
  #sandbox: boolean | undefined;

  constructor(options: IntakeServiceOptions) {
    this.#options = options;
    this.repo = new IntakeRepo(options.store.db, options.store.now);
    // The commits' own checkpoints only as a backstop, at 16 times the usual WAL size (64 MB with SQLite's
    // defaults): the checkpointer keeps the WAL far below that.
    this.#commits = new GroupCommit(options.store, { checkpointFactor: 16 });
    this.#checkpoints = new WalCheckpointer(options.store.file, {
      onError: (message) => options.logger?.warn('intake: a background checkpoint failed', { error: message }),
    });
  }

  get environmentId(): string {
    return this.#options.environmentId;
  }

  modeFor(sender: string): IntakeMode {
    return ruleFor(this.#options.rules ?? {}, sender);
  }

  /** Handles one message; resolves with the ACK to write once the message and its outcome are on disk. */
  handle(raw: Buffer, peer: string): Promise<IntakeResult> {
    return this.#track(this.#handle(raw, peer));
  }

  /**
   * At start, before listening: messages answered but not yet staged when the process stopped (staging follows the
   * ACK), and messages an earlier version of the intake recorded before answering them (`received`), answered now
   * (a batch that version made for one is reused). Each is staged once, so nothing received is lost even if its
   * sender never resends.
   */
  async recover(): Promise<number> {
    const received = this.repo.unanswered();
    for (const record of received) {
      const header = readMessageHeader(record.raw.toString('utf8'));
      const decision = await this.#redecide(record, header);
      const { value: answered, commit } = this.#commit(() => this.#answer(decision, record, record));
      await this.#durable(commit);
      if (answered.code !== 'AR') {
        const earlierBatch = this.repo.batchForFile(this.#options.environmentId, fileNameFor(record.id));
        if (earlierBatch !== undefined) this.#commit(() => this.repo.setBatch(record.id, earlierBatch));
        else this.#waiting.push({ id: record.id, decision, message: record });
      }
    }
    const unstaged = this.repo.unstaged();
    for (const record of unstaged) {
      const decision = await this.#redecide(record, readMessageHeader(record.raw.toString('utf8')));
      this.#waiting.push({ id: record.id, decision, message: record });
    }
    this.#stageWaiting();
    await this.#commits.sync();
    return received.length + unstaged.length;
  }

  /**
   * A refusal the listener made before any message was read (a peer refused on connect, a full listener, a frame too
   * large or dropped). A peer's entry keeps `outcome: 'peer'` for what reads it and says why in `reason`.
   */
  recordRefusal(refusal: ListenerRefusal): void {
    const { store, environmentId } = this.#options;
    if (!store.isOpen) return;
    store.audit.append({
      actor: 'system',
      action: refusal.kind === 'peer' || refusal.kind === 'busy' ? 'intake.peer.refused' : 'intake.frame.refused',
      environmentId,
      details: {
        peer: refusal.peer,
        outcome: refusal.kind,
        ...(refusal.kind === 'peer' ? { reason: AUDITED_REFUSAL_REASON[refusal.reason] } : {}),
        ...(refusal.kind === 'peer' && refusal.count !== undefined ? { connectionCount: refusal.count } : {}),
      },
    });
  }

  /** Resolves once every message answered so far is staged (tests, the benchmark). */
  staged(): Promise<void> {
    if (this.#waiting.length === 0 && this.#stagingScheduled === null) return Promise.resolve();
    // Asked for now: what waits for the window's end (or the next message) is staged on the next turn instead.
    if (!this.#stagingSoon) {
      this.#cancelStaging();
      this.#stagingScheduled = setImmediate(() => this.#stageWaiting());
      this.#stagingSoon = true;
    }
    return new Promise((resolve) => this.#stagedWaiters.push(resolve));
  }

  /**
   * Waits for the messages being handled (their commits made durable) and stages what is waiting; later messages
   * are refused.
   */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
    this.#cancelStaging();
    this.#stageWaiting();
    this.#commits.close();
    await this.#checkpoints.close();
  }

  /** A group commit (see GroupCommit), followed soon by a checkpoint off the event loop. */
  #commit<T>(fn: () => T): { value: T; commit: number } {
    const made = this.#commits.commit(fn);
    this.#checkpoints.nudge();
    return made;
  }

  #track<T>(run: Promise<T>): Promise<T> {
    this.#inflight.add(run);
    const done = () => this.#inflight.delete(run);
    run.then(done, done);
    return run;
  }

  async #handle(raw: Buffer, peer: string): Promise<IntakeResult> {
    if (this.#closed) throw new Error('the intake is stopping');
    const header = readMessageHeaderOf(raw);
    const sender = header?.sender ?? '';
    const controlId = header?.controlId ?? '';
    // A bound sender's name from another address is refused before its control id is looked up: answering it from
    // an earlier record (a resend's stored ACK, "MSH-10 was used … received at …") would tell a spoofer what the
    // sender sent and when.
    const profiles = this.#profiles();
    const spoofed = header && this.#peerRefusal(header, peer, profiles);
    if (spoofed) return this.#answerNew(spoofed, { sender, controlId, peer, raw });
    // A message under the same sender and control id being read meanwhile (a resend racing the first on another
    // connection) is waited for: this one is then answered from its record, with no second lookup per message.
    const key = controlId === '' ? '' : `${sender}\u0000${controlId}`;
    const reading = beingRead(this.#options.store);
    for (let first = reading.get(key); first; first = reading.get(key)) await first;
    if (this.#closed) throw new Error('the intake is stopping');
    const earlier = this.#answered(sender, controlId);
    if (earlier && isSameMessage(earlier.raw, raw)) return this.#resend(earlier, peer);
    const message = { sender, controlId, peer, raw };
    let decision: Decision;
    let made: Recorded;
    if (earlier) {
      decision = reusedControlId(header!, earlier);
      made = this.#record(decision, message);
    } else {
      let read = (): void => undefined;
      if (key !== '') reading.set(key, new Promise<void>((resolve) => (read = resolve)));
      try {
        // Read and decided in memory, before anything is written: the importer on the message alone.
        decision = await this.#decide(raw, header, profiles);
        if (this.#closed) throw new Error('the intake is stopping');
        made = this.#record(decision, message);
      } finally {
        if (key !== '') reading.delete(key);
        read();
      }
    }
    return this.#answerNew(decision, message, made);
  }

  /** Recorded (unless it already is), staged after the answer, and answered once durable. */
  async #answerNew(
    decision: Decision,
    message: MessageIdentity & { raw: Buffer },
    made: Recorded = this.#record(decision, message),
  ): Promise<IntakeResult> {
    const { value: result, commit } = made;
    if (result.code !== 'AR') this.#waiting.push({ id: result.recordId!, decision, message });
    this.#scheduleStaging();
    await this.#durable(commit);
    this.#announce(result, message.peer, message.controlId);
    return result;
  }

  /**
   * Recorded with its outcome and ACK (and a refusal's audit entry); the ACK waits until that commit is durable.
   * A message refused for reusing a control id keeps its bytes in a row of its own, without the id (one row per id
   * answers resends); its audit entry names the id. (Recording the messages of one turn of the loop together, at
   * its end, was measured: about 1% less CPU on four connections, 4% more on one.)
   */
  #record(decision: Decision, message: MessageIdentity & { raw: Buffer }): Recorded {
    const row = decision.reused || decision.unkeyed ? { ...message, controlId: '' } : message;
    return this.#commit(() => this.#answer(decision, row, undefined, message));
  }

  #answered(sender: string, controlId: string): IntakeMessageRecord | undefined {
    if (controlId === '') return undefined;
    const earlier = this.repo.find(this.#options.environmentId, sender, controlId);
    return earlier && earlier.outcome !== 'received' && earlier.ack ? earlier : undefined;
  }

  /** A resend of an answered message: its stored ACK again (once that answer is durable), nothing staged. */
  async #resend(earlier: IntakeMessageRecord, peer: string): Promise<IntakeResult> {
    const { store, environmentId } = this.#options;
    const { commit } = this.#commit(() =>
      store.audit.append({
        actor: 'system',
        action: 'intake.resent',
        environmentId,
        batchId: earlier.batchId,
        details: { peer, controlId: earlier.controlId, sender: earlier.sender, outcome: earlier.outcome },
      }),
    );
    await this.#durable(commit);
    const result: IntakeResult = {
      code: earlier.outcome as AckCode,
      ack: earlier.ack!,
      resent: true,
      batchId: earlier.batchId,
      recordId: earlier.id,
    };
    this.#options.onOutcome?.(result);
    return result;
  }

  /** A recorded message decided again at start, its peer checked against the profiles as they are now. */
  #redecide(record: IntakeMessageRecord, header: MessageHeader | undefined): Promise<Decision> {
    const profiles = this.#profiles();
    const spoofed = header && this.#peerRefusal(header, record.peer, profiles);
    return spoofed ? Promise.resolve(spoofed) : this.#decide(record.raw, header, profiles);
  }

  #isSandbox(): boolean {
    const { store, environmentId } = this.#options;
    return (this.#sandbox ??= store.environments.get(environmentId)?.kind === 'local-sandbox');
  }

  #profiles(): MappingProfile[] {
    return this.#options.store.mappingProfiles.list().map((saved) => saved.profile);
  }

  /**
   * AR, AE or AA, from the header, the sender's binding (sender-binding.ts) and the importer's reading of the
   * message (no store writes).
   */
  async #decide(raw: Buffer, header: MessageHeader | undefined, profiles: MappingProfile[]): Promise<Decision> {
    // An MSH whose MSH-2 cannot be read: ERR 102 saying why, answered with its MSH-10 (its header mirrored only).
    const unreadable = header ? undefined : unreadableHeaderOf(raw);
    if (unreadable) {
      const error: AckError = { hl7Code: '102', location: 'MSH^1^2', text: `${unreadable.reason}.` };
      return { code: 'AR', errors: [error], header: unreadable.header, read: undefined };
    }
    const refusal = refusalOf(header, raw);
    if (refusal) return { code: 'AR', errors: [refusal], header, read: undefined };
    const { store, staging, environmentId } = this.#options;
    const sender = header!.sender;
    const binding = bindingOf(sender, profiles);
    const read = await readMessage(raw, `${header!.controlId}.hl7`, {
      codeLists: staging.codeListsFor(environmentId),
      sandbox: this.#isSandbox(),
      profiles,
      isKnownOrder: (clinicCode, clinicOrderId) =>
        store.stagedOrders.isAccepted(environmentId, clinicCode, clinicOrderId),
      isPendingNewOrder: (clinicCode, clinicOrderId) => this.#sentEarlier(header!.sender, clinicCode, clinicOrderId),
      groupItemsOf: (clinicCode, clinicOrderId) => this.#groupItemsSentBy(sender, clinicCode, clinicOrderId),
      today: store.now(),
    });
    if (read.refused) {
      return {
        code: 'AR',
        errors: read.refused.map((problem) => ({ hl7Code: '207' as const, text: senderText(problem.text, UNREAD) })),
        header,
        read: undefined,
      };
    }
    // An order or cancel for a clinic the sender may not act for is not acted on, and answered with one ERR that
    // says only that (none of its other problems: `order.alreadyKnown` would tell whether another clinic's order
    // id exists). A cancel of an order this sender did not send is not acted on either. Both staged for review.
    const foreign = this.#foreignClinics(sender, binding, read);
    const held = this.#heldCancels(sender, read, foreign);
    // Where the sender's profile reads a field, for the ERR-2 of a required one the message left out.
    const fieldMap = profiles.find((profile) => profile.name === read.summary.profile)?.hl7FieldMap;
    const errors: AckError[] = [];
    const notActedOn: AckError[] = [];
    /** What the sender's profile was to give and does not (payment type, courier, currency): one ERR for all. */
    const notConfigured = new Set<string>();
    let never = false;
    for (const entry of read.entries) {
      if (foreign.has(entry)) {
        notActedOn.push(clinicNotActedOn(sender, { ...entry.order, orderControl: orderControlOf(entry) }));
        continue;
      }
      let unknown = false;
      let partial: Problem | undefined;
      for (const problem of entry.problems) {
        if (problem.code === UNKNOWN_ORDER) {
          unknown = true;
          continue;
        }
        if (problem.code === PARTIAL_CANCEL) {
          partial = problem;
          continue;
        }
        if (problem.severity !== 'error') continue;
        const unset = profileFieldMissing(problem);
        if (unset) {
          notConfigured.add(unset.what);
          continue;
        }
        if (NEVER_AN_ORDER.has(problem.code)) never = true;
        errors.push(toAckError(problem, entry.order, fieldMap));
      }
      if (unknown || entry.problems.some((problem) => problem.code === OTHER_SENDERS_ORDER)) {
        notActedOn.push(cancelNotActedOn(sender, entry.order));
      } else if (partial) {
        // Some items of a grouped order this sender sent: nothing was cancelled, and no preview edit makes it act.
        notActedOn.push(partialCancelNotActedOn(partial));
      }
    }
    if (notConfigured.size > 0) errors.push(notConfiguredError(sender, [...notConfigured]));
    // A cancel naming another sender's order and one naming no known order get the same answer, MSA-1 and ERR alike
    // (no existence oracle, docs/security.md finding 24). AE for both, not AA: AA tells the sender its message was
    // taken as sent and, under `send`, acted on, where here nothing was cancelled and nothing the sender or a person
    // fixes in the preview makes this cancel act; the prescription may still be dispensed, so the sender's system
    // must hear that the cancel did not happen.
    errors.push(...notActedOn);
    return {
      code: never || notActedOn.length > 0 ? 'AE' : 'AA',
      errors,
      header,
      read,
      ...(held.length > 0 ? { held } : {}),
    };
  }

  /** AR for a message naming a sender bound to other peers (finding 27), before anything else about it is read. */
  #peerRefusal(header: MessageHeader, peer: string, profiles: MappingProfile[]): Decision | undefined {
    if (refusalOf(header)) return undefined;
    const binding = bindingOf(header.sender, profiles);
    if (!binding.peerAllowed || binding.peerAllowed(peer)) return undefined;
    // Kept without its control id, so a message claiming a sender's name cannot take that sender's next MSH-10.
    const errors = [peerRefusal(header.sender, peer)];
    return { code: 'AR', errors, header, read: undefined, unkeyed: true, refusedAs: 'intake.sender.refused' };
  }

  /** The message's entries for a clinic the sender may not act for, each given the admin's problem. */
  #foreignClinics(sender: string, binding: SenderBinding, read: ReadMessage): Set<ReadMessage['entries'][number]> {
    const foreign = new Set<ReadMessage['entries'][number]>();
    for (const entry of read.entries) {
      if (mayActFor(binding, entry.order.clinicCode)) continue;
      const order = { clinicCode: entry.order.clinicCode, orderControl: orderControlOf(entry) };
      entry.problems.push(clinicNotBoundProblem(sender, binding, order, entry.order.source));
      foreign.add(entry);
    }
    return foreign;
  }

  /** The message's cancels (ORC-1 CA) that name an accepted order another sender, or an admin's import, sent. */
  #heldCancels(sender: string, read: ReadMessage, foreign: ReadonlySet<ReadMessage['entries'][number]>): HeldCancel[] {
    const { store, environmentId } = this.#options;
    const held: HeldCancel[] = [];
    for (const entry of read.entries) {
      if (foreign.has(entry)) continue;
      const { clinicCode, clinicOrderId } = entry.order;
      if (entry.order.source.orderControl !== 'CA' || !clinicCode || !clinicOrderId) continue;
      const known = store.orders.findAccepted(environmentId, clinicCode, clinicOrderId);
      if (!known || sentBy(store, this.repo, environmentId, sender, known)) continue;
      const cancel = otherSendersOrder(store, { sender, order: known, location: entry.order.source });
      entry.problems.push(cancel.problem);
      held.push(cancel);
    }
    return held;
  }

  /**
   * The accept's check of each cancel of a run of one sender's messages (appended to the batch at `staged`): one
   * whose order is another's stays staged with the reason and is audited (the order was accepted after the message
   * was read, or the sender's own new order was refused as already known).
   */
  #cancelCheck(run: Waiting[], staged: ReadonlyArray<{ batchId: number; after: number; upTo: number }>): CancelCheck {
    const { store, environmentId } = this.#options;
    const sender = run[0]!.message.sender;
    const runBatchId = staged[0]!.batchId;
    return (cancel, order) => {
      if (sentBy(store, this.repo, environmentId, sender, order, { batchId: runBatchId, kind: 'day' }))
        return undefined;
      const held = otherSendersOrder(store, { sender, order, location: cancel.source });
      const index = staged.findIndex((range) => cancel.position > range.after && cancel.position <= range.upTo);
      this.#auditHeld(held, run[Math.max(0, index)]!.message, runBatchId);
      return held.problem;
    };
  }

  #auditHeld(held: HeldCancel, message: MessageIdentity, batchId: number): void {
    const { store, environmentId } = this.#options;
    store.audit.append({
      actor: 'system',
      action: 'intake.cancel.held',
      environmentId,
      batchId,
      orderId: held.order.id,
      details: { peer: message.peer, controlId: message.controlId, sender: message.sender, outcome: 'held' },
    });
  }

  /**
   * Whether the sender's new order (ORC-1 NW) with this identity came in an earlier message not yet accepted: one
   * waiting to be staged, or staged in the sender's batch of the day (under "hold for review"). A cancel of it is
   * then a cancel of a known order: the accept queues the order and withdraws it unsent.
   */
  #sentEarlier(sender: string, clinicCode: string, clinicOrderId: string): boolean {
    return this.#earlierNewOrder(sender, clinicCode, clinicOrderId) !== undefined;
  }

  /** The message (its HL7 text, if kept) of the sender's earlier new order #sentEarlier finds, if any. */
  #earlierNewOrder(sender: string, clinicCode: string, clinicOrderId: string): { hl7: string | undefined } | undefined {
    for (const item of this.#waiting) {
      if (item.message.sender !== sender) continue;
      const entry = item.decision.read?.entries.find(
        ({ order }) =>
          order.clinicCode === clinicCode &&
          order.clinicOrderId === clinicOrderId &&
          (order.source.orderControl ?? 'NW') === 'NW',
      );
      if (entry) return { hl7: entry.order.source.hl7 };
    }
    const { store, environmentId } = this.#options;
    const batchId = this.repo.openBatch(environmentId, dayBatchName(sender, store.now()));
    if (batchId === undefined) return undefined;
    const position = store.stagedOrders.earlierWithIdentity(
      batchId,
      clinicCode,
      clinicOrderId,
      Number.MAX_SAFE_INTEGER,
    );
    if (position === undefined) return undefined;
    return { hl7: store.stagedOrders.after(batchId, position - 1, 1)[0]?.source.hl7 };
  }

  /**
   * The items (ORC-2) of a grouped order this sender sent, accepted or waiting, for its cancel (group-cancel.ts).
   * Another sender's order counts as none: its items are not this sender's to learn, and its cancel is answered as
   * one of no order (docs/security.md, finding 24).
   */
  #groupItemsSentBy(sender: string, clinicCode: string, clinicOrderId: string): string[] | undefined {
    const { store, environmentId } = this.#options;
    const accepted = store.orders.findAccepted(environmentId, clinicCode, clinicOrderId);
    if (accepted) {
      return sentBy(store, this.repo, environmentId, sender, accepted) ? groupItemsOfOrder(store, accepted) : undefined;
    }
    const pending = this.#earlierNewOrder(sender, clinicCode, clinicOrderId);
    return pending && groupItemsOfMessage(pending.hl7, clinicOrderId);
  }

  /**
   * The message's row with its outcome and ACK (`existing`: a row an earlier version recorded, answered now); a
   * refusal's audit entry with it. A message to stage is audited when staged.
   */
  #answer(
    decision: Decision,
    message: MessageIdentity & { raw: Buffer },
    existing?: IntakeMessageRecord,
    audited: MessageIdentity = message,
  ): IntakeResult {
    const { store, environmentId } = this.#options;
    const { code, errors, header } = decision;
    const ack = buildAck(header, { code, errors, now: store.now() });
    let recordId: number;
    if (existing) {
      this.repo.answer(existing.id, code, ack, null);
      recordId = existing.id;
    } else {
      recordId = this.repo.record({ environmentId, channel: 'mllp', ...message, outcome: code, ack, batchId: null });
    }
    if (code === 'AR') this.#audit(decision.refusedAs ?? 'intake.refused', decision, audited, null);
    return { code, ack, resent: false, batchId: null, recordId };
  }

  /**
   * Stages what is waiting, in one transaction (the rows of messages that came together share its pages), each
   * message in a savepoint of its own so one that fails (it stays unstaged until the next start) does not undo
   * the others. Not waited for by any ACK: the message's row is durable already, and `recover` stages it if this
   * never commits. Runs a moment after the ACKs (#scheduleStaging).
   */
  #stageWaiting(): void {
    this.#stagingScheduled = null;
    this.#stagingSoon = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    if (waiting.length > 0 && this.#options.store.isOpen) {
      const { logger } = this.#options;
      const failed = (item: Waiting, error: unknown) =>
        logger?.error('intake: a message could not be staged; it is staged again at the next start', {
          controlId: item.message.controlId,
          error: error instanceof Error ? error.message : String(error),
        });
      const fed = new Set<number>();
      try {
        this.#commit(() => {
          this.#stageRuns(waiting, failed, fed);
          // The start looks for unstaged rows only after this mark (migration 024), which stays below any that failed.
          this.repo.advanceStagedThrough();
        });
      } catch (error) {
        // The transaction itself failed (the write lock not had in time, a full disk): all of it is tried again in
        // a second (and at the next start, if the process stops first). Never thrown from here: this runs from
        // setImmediate, where it would end the process.
        logger?.error('intake: staging failed; trying again in a second', {
          messages: waiting.length,
          error: error instanceof Error ? error.message : String(error),
        });
        this.#waiting = [...waiting, ...this.#waiting];
        if (!this.#closed) {
          this.#stagingScheduled = setTimeout(() => this.#stageWaiting(), 1000);
          this.#stagingScheduled.unref();
        }
        return;
      }
      // No fsync of its own: the next ACK's covers it, and so does the outbox's before it sends an order accepted
      // here (its claim is later in the WAL). Lost only to power loss before then, and then staged again at start.
      for (const batchId of fed) this.#options.onStaged?.(batchId);
    }
    for (const resolve of this.#stagedWaiters.splice(0)) resolve();
  }

  /** Each run in a savepoint; a run that fails is staged again one message at a time. */
  #stageRuns(waiting: Waiting[], failed: (item: Waiting, error: unknown) => void, fed: Set<number>): void {
    const { store } = this.#options;
    for (const run of this.#runs(waiting)) {
      try {
        fed.add(store.inTransaction(() => this.#stage(run)));
      } catch (error) {
        // One message at a time, so the one that fails does not keep the others from being staged.
        if (run.length === 1) failed(run[0]!, error);
        else
          for (const item of run) {
            try {
              fed.add(store.inTransaction(() => this.#stage([item])));
            } catch (itemError) {
              failed(item, itemError);
            }
          }
      }
    }
  }

  /**
   * Staging waits a moment (STAGING_WINDOW_MS, or until STAGING_RUN messages wait) so that messages arriving one
   * after another, as on one connection, are staged together: one transaction, one accept and one batch lookup for
   * many instead of one each. No ACK waits for it (the rows are durable), and `recover` stages what a crash left.
   */
  #scheduleStaging(): void {
    if (this.#waiting.length >= STAGING_RUN && !this.#stagingSoon) {
      this.#cancelStaging();
      this.#stagingScheduled = setImmediate(() => this.#stageWaiting());
      this.#stagingSoon = true;
      return;
    }
    this.#stagingScheduled ??= setTimeout(() => this.#stageWaiting(), STAGING_WINDOW_MS);
  }

  #cancelStaging(): void {
    const scheduled = this.#stagingScheduled;
    if (scheduled) {
      clearImmediate(scheduled as NodeJS.Immediate);
      clearTimeout(scheduled as NodeJS.Timeout);
    }
    this.#stagingScheduled = null;
  }

  /** Consecutive messages of one sender that are accepted (AA under `send`) or not: staged together. */
  *#runs(waiting: Waiting[]): Generator<Waiting[]> {
    let run: Waiting[] = [];
    let key = '';
    for (const item of waiting) {
      const itemKey = `${item.message.sender}\u0000${this.#accepts(item)}`;
      if (run.length > 0 && itemKey !== key) {
        yield run;
        run = [];
      }
      key = itemKey;
      run.push(item);
    }
    if (run.length > 0) yield run;
  }

  #accepts(item: Waiting): boolean {
    return item.decision.code === 'AA' && this.modeFor(item.message.sender) === 'send';
  }

  /**
   * Messages of one sender, in the order they came, appended to its batch of the day (AA and AE: a person sees
   * them); under `send`, their orders accepted into the outbox by ONE accept of the positions they took (only
   * theirs); each row pointed at the batch, with its audit entry. Inside the caller's transaction. Returns the batch.
   */
  #stage(run: Waiting[]): number {
    const { store, staging, environmentId } = this.#options;
    const name = dayBatchName(run[0]!.message.sender, store.now());
    const staged = appendToDayBatch(
      store,
      this.repo,
      { environmentId, name },
      run.map((item) => item.decision.read!),
    );
    const batchId = staged[0]!.batchId;
    const accepts = this.#accepts(run[0]!);
    if (accepts) {
      const cancelCheck = this.#cancelCheck(run, staged);
      const outcome = staging.accept(batchId, { after: staged[0]!.after, upTo: staged.at(-1)!.upTo, cancelCheck });
      if (outcome.accepted > 0 || outcome.cancelled > 0) this.#options.onAccepted?.(batchId);
    }
    run.forEach((item, i) => {
      this.repo.setBatch(item.id, staged[i]!.batchId);
      const action = accepts ? 'intake.accepted' : item.decision.code === 'AA' ? 'intake.staged' : 'intake.refused';
      this.#audit(action, item.decision, item.message, staged[i]!.batchId);
      for (const held of item.decision.held ?? []) this.#auditHeld(held, item.message, staged[i]!.batchId);
    });
    return batchId;
  }

  #audit(action: string, decision: Decision, message: MessageIdentity, batchId: number | null): void {
    const { store, environmentId } = this.#options;
    store.audit.append({
      actor: 'system',
      action,
      environmentId,
      batchId,
      details: {
        peer: message.peer,
        controlId: message.controlId,
        sender: message.sender,
        outcome: decision.code,
        ...(decision.errors.length > 0 ? { invalidCount: decision.errors.length } : {}),
      },
    });
  }

  /** Waits until commit `commit` is on disk (one fsync shared by every commit made meanwhile). */
  async #durable(commit: number): Promise<void> {
    while (!this.#commits.isDurable(commit)) {
      await this.#commits.sync();
      if (!this.#commits.isDurable(commit) && this.#commits.allDurable()) {
        throw new Error('the message could not be made durable (an fsync failed)');
      }
    }
  }

  #announce(result: IntakeResult, peer: string, controlId: string): void {
    if (result.code !== 'AA') {
      this.#options.logger?.warn('intake: message not accepted', { peer, controlId, outcome: result.code });
    }
    this.#options.onOutcome?.(result);
  }
}

/** A message's record and the group commit that holds it. */
interface Recorded {
  value: IntakeResult;
  commit: number;
}

interface Waiting {
  id: number;
  decision: Decision;
  message: MessageIdentity;
}

interface MessageIdentity {
  sender: string;
  controlId: string;
  peer: string;
}

interface Decision {
  code: AckCode;
  errors: AckError[];
  header: MessageHeader | undefined;
  /** The importer's reading, when the message can be staged (AA, AE). */
  read: ReadMessage | undefined;
  /** Refused: another message from this sender was answered under the same control id. */
  reused?: true;
  /** Its cancels of orders this sender did not send: staged for review, not acted on (AE). */
  held?: HeldCancel[];
  /** Recorded without its control id (a refusal that must not hold the sender's MSH-10, see #decide). */
  unkeyed?: true;
  /** The audit action of an AR other than `intake.refused`. */
  refusedAs?: string;
}

const orderControlOf = (entry: ReadMessage['entries'][number]): string => entry.order.source.orderControl ?? 'NW';

/**
 * The sender and control id (`APP^FACILITY`, NUL, MSH-10) of each message being read, by store: resolved once its
 * row is recorded (or it fails). Every intake of a store shares it, as they share the rows.
 */
const READING = new WeakMap<Store, Map<string, Promise<void>>>();

function beingRead(store: Store): Map<string, Promise<void>> {
  let reading = READING.get(store);
  if (!reading) READING.set(store, (reading = new Map<string, Promise<void>>()));
  return reading;
}

/** AR: a different message under a control id this sender used before (HL7 0357 205, duplicate key). */
function reusedControlId(header: MessageHeader, earlier: IntakeMessageRecord): Decision {
  const text =
    `MSH-10 ${header.controlId} was used by another message from ${header.sender || 'a sender with no MSH-3 or MSH-4'} (received ${earlier.receivedAt}); ` +
    'this one was not staged: send it again with a control id of its own.';
  return {
    code: 'AR',
    errors: [{ hl7Code: '205', location: 'MSH^1^10', text }],
    header,
    read: undefined,
    reused: true,
  };
}

/** A frame that opens with a file or batch header segment (FHS, BHS) instead of a message's MSH. */
const BATCH_OPENING = /^[\s\ufeff]*(FHS|BHS)[^A-Za-z0-9\s]/;

/** AR: not HL7 (or a whole batch in one frame), an unsupported message type or version. */
function refusalOf(header: MessageHeader | undefined, raw?: Buffer): AckError | undefined {
  if (!header) {
    const batch = raw && BATCH_OPENING.exec(raw.toString('utf8', 0, 64))?.[1];
    if (batch) {
      return {
        hl7Code: '100',
        location: `${batch}^1`,
        text:
          `This frame holds an HL7 batch (${batch} … ${batch === 'FHS' ? 'FTS' : 'BTS'}); the MLLP intake takes one ` +
          'message per frame. Send each message in a frame of its own, or write the batch as a file into a watched ' +
          'folder, which reads batches.',
      };
    }
    return { hl7Code: '100', text: 'This is not an HL7 v2 message: it does not start with an MSH segment.' };
  }
  if (!isAcceptedMessageType(header.messageType)) {
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

/**
 * A required field the message left out: ERR 101, located where it is read from (the dosage also when the problem
 * points at a note or the timing that may hold it).
 */
const REQUIRED_MISSING: ReadonlySet<string> = new Set(['field.required', 'hl7.dosageInNote', 'hl7.dosageInTiming']);

/** An ORC-1 that is neither NW nor CA: a value not in the table (HL7 0119), or none. */
const ORDER_CONTROL_ERRORS: Partial<Record<string, AckError['hl7Code']>> = {
  'hl7.orderControl': '103',
  'hl7.noOrderControl': '101',
};

/** ERR-8 when all a problem says is what the admin does about it (ack-text.ts). */
const REVIEWED = 'The pharmacy reviews this before the order is sent.';
const UNREAD = 'The message could not be read as an order.';

/**
 * The one ERR for what an HL7 order cannot carry and the sender's profile does not give: the receiver's settings,
 * not the message, so ERR-4 `W` and no location; the order waits for the admin (AA, staged with those errors).
 */
function notConfiguredError(sender: string, what: readonly string[]): AckError {
  const listed = what.length === 1 ? what[0]! : `${what.slice(0, -1).join(', ')} or ${what.at(-1)!}`;
  return {
    hl7Code: '207',
    severity: 'W',
    text:
      `The pharmacy's settings for ${sender} give no ${listed}, which an HL7 order message does not carry: the ` +
      'order waits for the pharmacy to add them. Nothing in this message needs to change.',
  };
}

/**
 * An error of the message's order as ERR: ERR-3 by kind (101 a field required and missing), ERR-2 where it was read,
 * or for a required field the message left out, where it is read from (the sender's profile, else the default map);
 * ERR-8 its text for the sender (ack-text.ts).
 */
function toAckError(
  problem: Problem,
  order: Pick<ImportedOrder, 'provenance' | 'source'>,
  fieldMap: Record<string, string> | undefined,
): AckError {
  const orderControl = ORDER_CONTROL_ERRORS[problem.code];
  if (orderControl) return { hl7Code: orderControl, location: 'ORC^1^1', text: senderText(problem.text, REVIEWED) };
  const missing = REQUIRED_MISSING.has(problem.code);
  const hl7Code: AckError['hl7Code'] = missing
    ? '101'
    : problem.code.startsWith('hl7.')
      ? '100'
      : problem.field
        ? '102'
        : '207';
  const said = senderText(problem.text, REVIEWED);
  const text = problem.field ? `${problem.field}: ${said}` : said;
  const from = problem.field ? order.provenance[problem.field] : undefined;
  const path =
    from?.kind === 'hl7'
      ? from.path
      : missing && problem.field
        ? requiredFieldPath(problem.field, order.source.hl7, fieldMap)
        : undefined;
  const location = errorLocation(path, problem.field);
  return { hl7Code, text, ...(location ? { location } : {}) };
}
