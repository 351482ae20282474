import { z } from 'zod';

/**
 * Live intake's staging rules (issue #17), as the admin sets them per environment: a default for every sender
 * and a rule per sender. `send`: valid orders are accepted into the outbox as they arrive; `hold`: they wait in
 * the sender's batch of the day in Preview. Pure (no Node, no DOM): the contract, the store, the CLI and the
 * Intake screen all check a sender with `senderKeyProblem`, so each says the same thing about the same key.
 */

export const intakeModeSchema = z.enum(['send', 'hold']);
export type IntakeModeView = z.infer<typeof intakeModeSchema>;

/** Characters of one part of a sender key: what HL7 namespace ids are written with, and never an HL7 separator. */
const SENDER_PART = /^[\p{L}\p{N} ._\-:/#+@()']+$/u;
/** Length of the application (MSH-3) and of the facility (MSH-4), each; the key is at most 2 × this + 1. */
export const SENDER_PART_MAX = 50;
/** Sender rules one environment may hold. */
export const SENDER_RULES_MAX = 100;

const HL7_SEPARATORS = ['|', '~', '\\', '&'];

/**
 * Why `key` is not a sender as the intake matches it (MSH-3, or MSH-3^MSH-4: their first components, as the
 * message writes them), or undefined when it is one. The words are for the admin who typed it.
 */
export function senderKeyProblem(key: string): string | undefined {
  if (key.trim() === '') return 'A sender is APP or APP^FACILITY (MSH-3, and MSH-4 if given); this one is empty.';
  const shown = key.length > 120 ? `${key.slice(0, 120)}…` : key;
  const parts = key.split('^');
  if (parts.length > 2) return `"${shown}" has more than one ^: a sender is APP or APP^FACILITY.`;
  const [application = '', facility] = parts;
  if (application === '') return `"${shown}" has no application (MSH-3) before the ^.`;
  if (facility === '') {
    return `"${shown}" has nothing after the ^: write the facility (MSH-4), or APP alone for every facility of APP.`;
  }
  for (const [name, part] of [
    ['application (MSH-3)', application],
    ['facility (MSH-4)', facility],
  ] as const) {
    if (part === undefined) continue;
    if (part.trim() !== part) return `"${shown}": the ${name} starts or ends with a space.`;
    if (part.length > SENDER_PART_MAX) return `"${shown}": the ${name} is longer than ${SENDER_PART_MAX} characters.`;
    const separator = HL7_SEPARATORS.find((character) => part.includes(character));
    if (separator) return `"${shown}": ${separator} is an HL7 separator and cannot be in a sender.`;
    if (!SENDER_PART.test(part)) {
      return `"${shown}": a sender is written with letters, digits, spaces and . _ - : / # + @ ( ) ' only.`;
    }
  }
  return undefined;
}

export const intakeSenderKeySchema = z
  .string()
  .max(2 * SENDER_PART_MAX + 1)
  .superRefine((key, context) => {
    const problem = senderKeyProblem(key);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

export const intakeSenderRuleSchema = z.object({ sender: intakeSenderKeySchema, onArrival: intakeModeSchema }).strict();
export type IntakeSenderRuleView = z.infer<typeof intakeSenderRuleSchema>;

/** The first sender listed twice, if any (one rule per sender). */
export function duplicateSender(senders: readonly { sender: string }[]): string | undefined {
  const seen = new Set<string>();
  for (const { sender } of senders) {
    if (seen.has(sender)) return sender;
    seen.add(sender);
  }
  return undefined;
}

export const intakeRuleSetSchema = z
  .object({
    /** For every sender not listed. */
    onArrival: intakeModeSchema,
    senders: z
      .array(intakeSenderRuleSchema)
      .max(SENDER_RULES_MAX, `At most ${SENDER_RULES_MAX} senders can have a rule of their own.`),
  })
  .strict()
  .superRefine((rules, context) => {
    const twice = duplicateSender(rules.senders);
    if (twice !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['senders'],
        message: `"${twice}" is listed twice: one rule a sender.`,
      });
    }
  });
export type IntakeRuleSetView = z.infer<typeof intakeRuleSetSchema>;

/** The rules of an environment that has saved none: everything held for review. */
export const DEFAULT_INTAKE_RULES: IntakeRuleSetView = { onArrival: 'hold', senders: [] };

/**
 * A rule set in one line, for the audit log and the command line: `hold; send: EPR-7^CLINIC-H, LAB; hold: X`
 * (the default first, then the senders of each rule in the order given). Unambiguous: a sender has no `,` or `;`.
 */
export function describeIntakeRules(rules: IntakeRuleSetView): string {
  const parts: string[] = [rules.onArrival];
  for (const mode of ['send', 'hold'] as const) {
    const senders = rules.senders.filter((rule) => rule.onArrival === mode).map((rule) => rule.sender);
    if (senders.length > 0) parts.push(`${mode}: ${senders.join(', ')}`);
  }
  return parts.join('; ');
}

/** The longest `describeIntakeRules` can be (the audit details' bound). */
export const DESCRIBED_RULES_MAX = 'hold; send: ; hold: '.length + SENDER_RULES_MAX * (2 * SENDER_PART_MAX + 1 + 2);
