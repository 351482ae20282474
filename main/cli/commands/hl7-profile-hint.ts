import type { CodeLists } from '../../../shared/environment.js';
import type { Hl7Sender, ProblemView } from '../../../shared/staging-views.js';
import { isNotAnOrder } from '../../core/model/imported-order.js';
import { profileFieldMissing, withoutProfileHint } from '../../core/staging/hl7-route.js';

/**
 * An HL7 order message carries no payment type, courier or currency: the sender's mapping profile gives them. The
 * core's problem text says where in the app ("Import, HL7 mapping"); the CLI says its own command instead, with the
 * sender filled in (envelope fields, never patient data) and the environment's codes to choose from.
 */

const SETTINGS: ReadonlyArray<{
  field: string;
  what: string;
  placeholder: string;
  codes: 'paymentTypes' | 'courierCodes' | 'currencyCodes';
}> = [
  { field: 'prescription.paymentType', what: 'payment type', placeholder: 'PAYMENT_TYPE', codes: 'paymentTypes' },
  { field: 'prescription.courierCode', what: 'courier', placeholder: 'COURIER', codes: 'courierCodes' },
  { field: 'prescription.currencyCode', what: 'currency', placeholder: 'CURRENCY', codes: 'currencyCodes' },
];

const orList = (words: string[]) =>
  words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`;

/** A problem's text without the app's own directions, which the CLI replaces with `hl7ProfileHint`. */
export const cliProblemText = (problem: ProblemView): string => withoutProfileHint([problem])[0]!.text;

/**
 * Adds the profile fields (body paths) an order's problems say are missing to `into`; true when the order also has
 * an error no profile fixes (then `batch errors` is still the way to fix it). A message that is no order at all
 * has neither: no fix makes it one.
 */
export function noteProfileFields(problems: readonly ProblemView[], into: Set<string>): boolean {
  if (isNotAnOrder(problems)) return false;
  let other = false;
  for (const problem of problems) {
    if (profileFieldMissing(problem) && problem.field) into.add(problem.field);
    else if (problem.severity === 'error') other = true;
  }
  return other;
}

/** The lines that say how the CLI gives the missing fields: a profile for the sender, or the forward route. */
export function hl7ProfileHint(args: {
  fields: ReadonlySet<string>;
  sender: Hl7Sender | undefined;
  codeLists: CodeLists;
  file: string;
  environmentId: string;
}): string[] {
  const settings = SETTINGS.filter((setting) => args.fields.has(setting.field));
  if (settings.length === 0) return [];
  const { sender } = args;
  const who = sender ? `${sender.application}${sender.facility ? `^${sender.facility}` : ''}` : 'APP^FACILITY';
  const type = sender?.messageType ? ` --message-type ${sender.messageType}` : '';
  const sets = settings.map((setting) => ` --set ${setting.field}=${setting.placeholder}`).join('');
  const choices = settings
    .map((setting) => `${setting.placeholder} one of ${args.codeLists[setting.codes].join(', ') || '(none listed)'}`)
    .join('; ');
  return [
    `Fix: an HL7 order message has no ${orList(settings.map((setting) => setting.what))}; a mapping profile for its sender gives ${settings.length === 1 ? 'it' : 'them'}:`,
    `  rx-batch profile add-hl7 NAME --sender ${who}${type}${sets}`,
    `  (${choices}), then rx-batch import ${args.file} --env ${args.environmentId} again;`,
    '  or import it with --route hl7 to forward the original messages (the service applies its own).',
  ];
}
