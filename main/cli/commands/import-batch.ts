import { resolve } from 'node:path';
import { invalidInWords, notOrdersSentence } from '../../../shared/hl7-message-types.js';
import type { ProblemView } from '../../../shared/staging-views.js';
import { ANY_PATH } from '../../core/import-path-policy.js';
import { stagingFor } from '../../core/staging/staging-handlers.js';
import { layoutProfileHint } from '../../core/staging/layout-profile-hint.js';
import { StagingError } from '../../core/staging/staging-deps.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError, UsageError } from '../cli-errors.js';
import { plural } from '../../../shared/count-words.js';
import { cliProblemText, hl7ProfileHint, noteProfileFields } from './hl7-profile-hint.js';

/** Profile choices made without --profile: by the CSV header, by the HL7 sender, or several fitting the sender. */
const AUTOMATIC_CHOICES = new Set(['header', 'sender', 'several']);

/** Problem lines printed on stderr at most; the rest are in `batch show` and `batch errors`. */
const MAX_PROBLEM_LINES = 200;

export interface ImportArgs {
  file: string;
  environmentId: string;
  profile?: string;
  /** Use no saved profile: the CSV template or columns matched afresh by name; HL7's standard field map. */
  noProfile?: boolean;
  encoding?: string;
  route?: string;
  /** Each order problem's text on stderr even when it is no terminal (texts quote the file's values). */
  problemText?: boolean;
}

function where(problem: ProblemView, position?: number): string {
  if (problem.row !== undefined) return `row ${problem.row}: `;
  if (problem.message !== undefined) return `message ${problem.message}: `;
  return position !== undefined ? `order ${position}: ` : '';
}

const line = (file: string, problem: ProblemView, position?: number) =>
  `${file}: ${where(problem, position)}${problem.field ? `${problem.field}: ` : ''}${cliProblemText(problem)}`;

/**
 * An order's problem without its text, which quotes the patient values it is about (a name, a date of birth): what
 * stderr gets when it is no terminal, since a scheduler or a redirect keeps it in a log file.
 */
const codeLine = (file: string, problem: ProblemView, position?: number) =>
  `${file}: ${where(problem, position)}${problem.field ? `${problem.field}: ` : ''}${problem.severity} ${problem.code}`;

/**
 * `import FILE --env ENV [--profile NAME | --no-profile] [--encoding E] [--route v1|v2|hl7]`: stages a CSV, HL7 or
 * JSON file as a batch. Exit 0 when every order is valid, 1 when some need fixing (listed on stderr with row or message and
 * field), 2 when the file cannot be imported at all (one line per reason).
 */
export async function importBatch(ctx: CliContext, args: ImportArgs): Promise<number> {
  if (args.route !== undefined && !['v1', 'v2', 'hl7'].includes(args.route)) {
    throw new UsageError('--route must be v1, v2 or hl7');
  }
  if (args.profile !== undefined && args.noProfile) {
    throw new UsageError(
      '--profile and --no-profile cannot be used together: --profile NAME reads the file with that saved profile, ' +
        '--no-profile with none',
    );
  }
  const services = ctx.services;
  const environment = ctx.environment(args.environmentId);
  const staging = stagingFor(services);
  // The user's own path: ANY_PATH resolves its links, then staging opens the answer once, as for every caller.
  const path = (await ANY_PATH.allow(resolve(args.file), 'import')) ?? resolve(args.file);
  let outcome;
  try {
    outcome = await staging.importFile({
      environmentId: args.environmentId,
      path,
      signal: ctx.io.signal,
      ...(args.profile !== undefined ? { profile: args.profile } : {}),
      ...(args.noProfile ? { autoProfile: false } : {}),
      ...(args.encoding !== undefined ? { encoding: args.encoding } : {}),
      ...(args.route !== undefined ? { route: args.route as 'v1' | 'v2' | 'hl7' } : {}),
    });
  } catch (error) {
    if (error instanceof StagingError) throw new InputError(error.message.replace(path, args.file));
    throw error;
  }
  if (outcome.status === 'cancelled') {
    ctx.warn('Import cancelled; nothing was staged.');
    return EXIT.attention;
  }
  const choice = outcome.summary.profileChoice;
  // Said on stderr whenever a saved profile was picked (or could not be) without --profile: it changes the orders.
  if (choice && AUTOMATIC_CHOICES.has(choice.via)) {
    ctx.warn(`${args.file}: ${choice.reason}${choice.via === 'several' ? '; give --profile NAME' : ''}`);
  }
  if (outcome.status === 'refused') {
    for (const problem of outcome.problems) ctx.warn(line(args.file, problem));
    // The CLI makes no CSV mapping: say where one is made and how it comes here.
    const hint = layoutProfileHint(outcome.problems);
    if (hint) ctx.warn(hint);
    return EXIT.usage;
  }

  // What the file as a whole says (its encoding told from the bytes, not as MSH-18 named it; padding cut off): the
  // preview shows it above the grid.
  for (const problem of outcome.summary.fileProblems) ctx.warn(line(args.file, problem));
  const withText = args.problemText === true || (ctx.io.stderr as { isTTY?: boolean }).isTTY === true;
  let printed = 0;
  let more = false;
  /** HL7: the fields only a mapping profile can give that some order lacks (said once, as the CLI gives them). */
  const profileFields = new Set<string>();
  let otherErrors = false;
  for (let offset = 0; !more; offset += 500) {
    const { orders } = services.store.stagedOrders.page({
      batchId: outcome.batchId,
      offset,
      limit: 500,
      onlyProblems: true,
    });
    if (orders.length === 0) break;
    for (const order of orders) {
      if (outcome.summary.format !== 'hl7') otherErrors = true;
      else if (noteProfileFields(order.problems, profileFields)) otherErrors = true;
      for (const problem of order.problems) {
        if (printed === MAX_PROBLEM_LINES) more = true;
        else {
          ctx.warn((withText ? line : codeLine)(args.file, problem, order.position));
          printed += 1;
        }
      }
    }
  }
  if (printed > 0 && !withText) {
    ctx.warn(
      `(codes only: the problems' texts quote patient values, and stderr is no terminal; rx-batch batch show ${outcome.batchId} gives them, or import with --problem-text)`,
    );
  }
  if (more) {
    ctx.warn(
      `… more problems: rx-batch batch show ${outcome.batchId}, or rx-batch batch errors ${outcome.batchId} FILE`,
    );
  }
  // Messages that are no order at all (another message type, unreadable, no item): no fix in a CSV makes them one.
  const { notOrders } = outcome;
  const summary = {
    batchId: outcome.batchId,
    orders: outcome.orders,
    valid: outcome.valid,
    invalid: outcome.invalid,
    notOrders,
  };
  if (ctx.options.json) ctx.json(summary);
  else {
    const { summary: report } = outcome;
    const detected = [
      report.format.toUpperCase(),
      report.encoding,
      report.delimiter !== undefined ? `delimiter ${JSON.stringify(report.delimiter)}` : undefined,
      report.headerRow !== undefined ? `header on line ${report.headerRow}` : undefined,
      report.messageTypes?.length ? report.messageTypes.join(', ') : undefined,
      report.profile !== undefined ? `profile ${report.profile}` : undefined,
    ].filter(Boolean);
    ctx.line(`Read ${detected.join(', ')}.`);
    ctx.line(
      `Staged batch ${outcome.batchId}: ${plural(outcome.orders, 'order')}, ${outcome.valid} valid, ${invalidInWords(outcome.invalid, notOrders)}.`,
    );
    if (notOrders > 0) ctx.line(`${notOrdersSentence(notOrders)} The problems above say why.`);
    const hint = hl7ProfileHint({
      fields: profileFields,
      sender: report.hl7Sender,
      codeLists: environment.codeLists,
      file: args.file,
      environmentId: args.environmentId,
    });
    for (const text of hint) ctx.line(text);
    if (outcome.invalid > notOrders && (hint.length === 0 || otherErrors)) {
      ctx.line(`Fix: rx-batch batch errors ${outcome.batchId} errors.csv, then import it again`);
    }
    if (outcome.valid > 0) ctx.line(`Next: rx-batch accept ${outcome.batchId}`);
  }
  return outcome.invalid > 0 ? EXIT.attention : EXIT.ok;
}
