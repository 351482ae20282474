import {
  describeIntakeRules,
  senderKeyProblem,
  type IntakeModeView,
  type IntakeRuleSetView,
  type IntakeSenderRuleView,
} from '../../../shared/intake-rules.js';
import { withOverrides, type RuleOverrides } from '../../core/intake/intake-rules.js';
import { IntakeRulesError } from '../../core/store/intake-rules-repo.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError, UsageError } from '../cli-errors.js';

function modeOf(text: string): IntakeModeView {
  if (text === 'hold' || text === 'send') return text;
  throw new UsageError('--on-arrival is send (valid orders go to the outbox at once) or hold (for review)');
}

/** The rules --on-arrival, --send-from and --hold-from give (checked: each sender valid, none in both lists). */
export function ruleFlags(args: { onArrival?: string; sendFrom: string[]; holdFrom: string[] }): RuleOverrides {
  const senders: IntakeSenderRuleView[] = [];
  for (const [flag, list, onArrival] of [
    ['--send-from', args.sendFrom, 'send'],
    ['--hold-from', args.holdFrom, 'hold'],
  ] as const) {
    for (const given of list) {
      const sender = given.trim();
      const problem = senderKeyProblem(sender);
      if (problem) throw new UsageError(`${flag}: ${problem}`);
      const earlier = senders.find((rule) => rule.sender === sender);
      if (earlier && earlier.onArrival !== onArrival) {
        throw new UsageError(`${sender} is given to both --send-from and --hold-from: give it one rule`);
      }
      if (!earlier) senders.push({ sender, onArrival });
    }
  }
  return { ...(args.onArrival !== undefined ? { onArrival: modeOf(args.onArrival) } : {}), senders };
}

/**
 * `intake rules --env ENV [--on-arrival send|hold] [--send-from SENDER]… [--hold-from SENDER]… [--forget SENDER]…`:
 * the environment's saved staging rules, which `serve` and the app's Intake screen start with, shown and changed
 * without the UI. Changes are made to the saved rules (the other senders keep theirs) and audited
 * (`intake.rules.changed`); without a change flag the rules are only shown.
 */

export interface IntakeRulesArgs {
  environmentId: string;
  onArrival?: string;
  sendFrom: string[];
  holdFrom: string[];
  forget: string[];
}

export function intakeRules(ctx: CliContext, args: IntakeRulesArgs): number {
  const { store } = ctx.services;
  ctx.environment(args.environmentId);
  const overrides = ruleFlags(args);
  const saved = store.intakeRules.get(args.environmentId);
  const forget = args.forget.map((sender) => sender.trim());
  for (const sender of forget) {
    if (overrides.senders?.some((rule) => rule.sender === sender)) {
      throw new UsageError(`${sender} is given a rule and --forget: give one of them`);
    }
    if (!saved.rules.senders.some((rule) => rule.sender === sender)) {
      throw new InputError(`--forget ${sender}: that sender has no rule of its own for ${args.environmentId}`);
    }
  }
  const changing = overrides.onArrival !== undefined || (overrides.senders?.length ?? 0) > 0 || forget.length > 0;
  let shown = saved;
  let changed = false;
  if (changing) {
    const next = withOverrides(saved.rules, overrides);
    const rules: IntakeRuleSetView = {
      onArrival: next.onArrival,
      senders: next.senders.filter((rule) => !forget.includes(rule.sender)),
    };
    try {
      ({ changed, ...shown } = store.intakeRules.save(args.environmentId, rules, 'user'));
    } catch (error) {
      if (error instanceof IntakeRulesError) throw new InputError(error.message);
      throw error;
    }
  }
  if (ctx.options.json) {
    ctx.json({ environmentId: args.environmentId, ...shown, changed });
    return EXIT.ok;
  }
  const { rules } = shown;
  const words = (mode: IntakeModeView) =>
    mode === 'send' ? 'send valid orders as they arrive' : 'hold for review in Preview';
  ctx.line(`${args.environmentId}: ${describeIntakeRules(rules)}`);
  for (const rule of rules.senders) ctx.line(`  ${rule.sender}: ${words(rule.onArrival)}`);
  ctx.line(`  ${rules.senders.length > 0 ? 'every other sender' : 'every sender'}: ${words(rules.onArrival)}`);
  if (changing) ctx.line(changed ? 'Saved; serve and the Intake screen use them from their next start.' : 'Unchanged.');
  else if (shown.updatedAt === null) ctx.line('(none saved yet: everything is held for review)');
  return EXIT.ok;
}
