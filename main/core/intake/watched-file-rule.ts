import type { ImportSummary } from '../../../shared/staging-views.js';
import { ruleFor, type IntakeMode, type IntakeRules } from './intake-service.js';

/**
 * The staging rule of a file from a watched folder. An HL7 file follows its senders' rules, the senders read as
 * the MLLP listener reads a message's (MSH-3^MSH-4; the FHS/BHS's for a message naming none), so a message is
 * staged the same way whether it came over MLLP or in a file. A file holding several senders' messages is one
 * batch, so it gets one rule, the strictest: `hold` as soon as one of its senders holds (nothing is sent that a
 * sender's rule says a person should see first). A CSV or JSON file names no sender: the default rule.
 */

export interface WatchedFileRule {
  mode: IntakeMode;
  /**
   * Whose rule it is: under `hold` the senders that hold, under `send` every sender of the file; empty when the
   * file names no sender (the default rule).
   */
  senders: string[];
  /** The file had more senders than were listed (hl7-sender.ts): held unless every sender's rule is `send`. */
  more: boolean;
}

export function watchedFileRule(rules: IntakeRules, summary: ImportSummary | undefined): WatchedFileRule {
  const listed = summary?.hl7MessageSenders;
  if (!listed) return { mode: rules.mode ?? 'hold', senders: [], more: false };
  const holding = listed.senders.filter((sender) => ruleFor(rules, sender) === 'hold');
  if (holding.length > 0) return { mode: 'hold', senders: holding, more: false };
  // Senders beyond the listed ones are not known by name: they send only if every rule does.
  const everyoneSends = rules.mode === 'send' && !Object.values(rules.senders ?? {}).includes('hold');
  return { mode: listed.more && !everyoneSends ? 'hold' : 'send', senders: listed.senders, more: listed.more };
}

/** The senders of a rule in one line for the audit entry and the log (at most `max` characters). */
export function describeFileSenders(rule: WatchedFileRule, max = 200): string | undefined {
  if (rule.senders.length === 0) return undefined;
  const names = rule.senders.map((sender) => (sender === '' ? '(no sender)' : sender));
  const text = `${names.join(', ')}${rule.more ? ' and more' : ''}`;
  return text.length <= max ? text : `${text.slice(0, max - 10)}… and more`;
}
