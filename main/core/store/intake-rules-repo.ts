import type Database from 'better-sqlite3';
import {
  DEFAULT_INTAKE_RULES,
  describeIntakeRules,
  duplicateSender,
  senderKeyProblem,
  SENDER_RULES_MAX,
  type IntakeModeView,
  type IntakeRuleSetView,
} from '../../../shared/intake-rules.js';
import type { AuditActor } from '../model/audit-entry.js';
import type { AuditRepo } from './audit-repo.js';
import { isoTime } from './time.js';

/**
 * Live intake's staging rules per environment (migration 019): the default for every sender and each sender's own
 * rule, read by `rx-batch serve` and the app's intake at start, saved from the CLI (`intake rules`) and the
 * Intake screen. A save is one transaction with its `intake.rules.changed` entry (old and new rules in one line
 * each: sender names and rules, never message text).
 */

export interface StoredIntakeRules {
  rules: IntakeRuleSetView;
  /** Null: never saved (the default, everything held). */
  updatedAt: string | null;
}

export interface SavedIntakeRules extends StoredIntakeRules {
  /** False when the rules saved were the ones already kept: nothing written, nothing audited. */
  changed: boolean;
}

/** Rules that cannot be kept as given: the sentence says which sender and why. */
export class IntakeRulesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IntakeRulesError';
  }
}

/** The first reason these rules cannot be kept, or undefined (the contract's schema checks the same). */
export function intakeRulesProblem(rules: IntakeRuleSetView): string | undefined {
  const modes: readonly string[] = ['send', 'hold'];
  if (!modes.includes(rules.onArrival)) return 'The default rule is send or hold.';
  if (rules.senders.length > SENDER_RULES_MAX) {
    return `At most ${SENDER_RULES_MAX} senders can have a rule of their own.`;
  }
  for (const rule of rules.senders) {
    const problem = senderKeyProblem(rule.sender);
    if (problem) return problem;
    if (!modes.includes(rule.onArrival)) return `The rule for "${rule.sender}" is send or hold.`;
  }
  const twice = duplicateSender(rules.senders);
  return twice === undefined ? undefined : `"${twice}" is listed twice: one rule a sender.`;
}

const sameRules = (a: IntakeRuleSetView, b: IntakeRuleSetView) =>
  a.onArrival === b.onArrival &&
  a.senders.length === b.senders.length &&
  a.senders.every((rule, i) => rule.sender === b.senders[i]?.sender && rule.onArrival === b.senders[i]?.onArrival);

export class IntakeRulesRepo {
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #audit: AuditRepo;
  readonly #head: Database.Statement<[string], { onArrival: IntakeModeView; updatedAt: string }>;
  readonly #senders: Database.Statement<[string], { sender: string; onArrival: IntakeModeView }>;
  readonly #environment: Database.Statement<[string], { id: string }>;
  readonly #putHead: Database.Statement<[string, string, string]>;
  readonly #clearSenders: Database.Statement<[string]>;
  readonly #putSender: Database.Statement<[string, string, string, number]>;

  constructor(db: Database.Database, now: () => Date, audit: AuditRepo) {
    this.#db = db;
    this.#now = now;
    this.#audit = audit;
    this.#head = db.prepare(
      'SELECT on_arrival AS onArrival, updated_at AS updatedAt FROM intake_rules WHERE environment_id = ?',
    );
    this.#senders = db.prepare(
      `SELECT sender, on_arrival AS onArrival FROM intake_sender_rules WHERE environment_id = ? ORDER BY position`,
    );
    this.#environment = db.prepare('SELECT id FROM environments WHERE id = ? AND removed_at IS NULL');
    this.#putHead = db.prepare(
      `INSERT INTO intake_rules (environment_id, on_arrival, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (environment_id) DO UPDATE SET on_arrival = excluded.on_arrival, updated_at = excluded.updated_at`,
    );
    this.#clearSenders = db.prepare('DELETE FROM intake_sender_rules WHERE environment_id = ?');
    this.#putSender = db.prepare(
      'INSERT INTO intake_sender_rules (environment_id, sender, on_arrival, position) VALUES (?, ?, ?, ?)',
    );
  }

  /** The environment's rules; the default (everything held) when it never saved any. */
  get(environmentId: string): StoredIntakeRules {
    const head = this.#head.get(environmentId);
    if (!head) return { rules: { ...DEFAULT_INTAKE_RULES, senders: [] }, updatedAt: null };
    return {
      rules: { onArrival: head.onArrival, senders: this.#senders.all(environmentId) },
      updatedAt: head.updatedAt,
    };
  }

  /**
   * Replaces the environment's rules with `rules` (senders in the order given), audited with the old and new
   * rules; rules equal to the kept ones are not written again. Throws IntakeRulesError for a bad sender or an
   * environment that does not exist (or was removed).
   */
  save(environmentId: string, rules: IntakeRuleSetView, actor: AuditActor = 'user'): SavedIntakeRules {
    const problem = intakeRulesProblem(rules);
    if (problem) throw new IntakeRulesError(problem);
    return this.#db
      .transaction((): SavedIntakeRules => {
        if (!this.#environment.get(environmentId)) {
          throw new IntakeRulesError(`There is no environment "${environmentId}".`);
        }
        const before = this.get(environmentId);
        if (before.updatedAt !== null && sameRules(before.rules, rules)) return { ...before, changed: false };
        const at = isoTime(this.#now());
        this.#putHead.run(environmentId, rules.onArrival, at);
        this.#clearSenders.run(environmentId);
        rules.senders.forEach((rule, position) =>
          this.#putSender.run(environmentId, rule.sender, rule.onArrival, position),
        );
        this.#audit.appendWithin({
          actor,
          action: 'intake.rules.changed',
          environmentId,
          details: {
            intakeRules: describeIntakeRules(rules),
            previousIntakeRules: describeIntakeRules(before.rules),
          },
        });
        return { ...this.get(environmentId), changed: true };
      })
      .immediate();
  }
}
