import type { IntakeModeView, IntakeRuleSetView, IntakeSenderRuleView } from '../../../shared/intake-rules.js';
import type { IntakeMode, IntakeRules } from './intake-service.js';

/**
 * From the rules an environment keeps (store/intake-rules-repo.ts) to the rules a run of the intake uses. A run
 * may override them for itself (`rx-batch serve --on-arrival/--send-from/--hold-from`, `intake.start` with an
 * `onArrival`): the default given replaces the saved default; a sender given gets that rule, the other saved
 * senders keep theirs. Nothing here is saved.
 */

export interface RuleOverrides {
  onArrival?: IntakeModeView;
  senders?: readonly IntakeSenderRuleView[];
}

export function withOverrides(saved: IntakeRuleSetView, overrides: RuleOverrides = {}): IntakeRuleSetView {
  const given = overrides.senders ?? [];
  const givenSenders = new Set(given.map((rule) => rule.sender));
  const senders = [...saved.senders.filter((rule) => !givenSenders.has(rule.sender))];
  for (const rule of given) {
    const at = senders.findIndex((kept) => kept.sender === rule.sender);
    if (at >= 0) senders[at] = rule;
    else senders.push(rule);
  }
  return { onArrival: overrides.onArrival ?? saved.onArrival, senders };
}

/** The IntakeService's form: senders in a prototype-less record, so a sender named `constructor` is just a name. */
export function serviceRules(rules: IntakeRuleSetView): IntakeRules {
  const senders = Object.create(null) as Record<string, IntakeMode>;
  for (const rule of rules.senders) senders[rule.sender] = rule.onArrival;
  return { mode: rules.onArrival, senders };
}
