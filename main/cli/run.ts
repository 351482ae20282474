import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PrivateDirError } from '../core/platform/private-files.js';
import { StoreLockedError } from '../core/store/data-dir-lock.js';
import { CliContext, resolveDataDir, type CliIo } from './cli-context.js';
import { commandSuggestion } from './command-suggestion.js';
import { EXIT, InputError, UsageError, wholeNumber } from './cli-errors.js';
import { accept } from './commands/accept.js';
import { batchErrors, batchExportTemplate, batchList, batchShow } from './commands/batch.js';
import { batchCheck } from './commands/batch-check.js';
import { cancel } from './commands/cancel.js';
import { envAdd, envList } from './commands/env.js';
import { importBatch } from './commands/import-batch.js';
import { intakeRules } from './commands/intake-rules.js';
import { logExport, logVerify } from './commands/log.js';
import { login, logout } from './commands/login.js';
import { status } from './commands/status.js';
import { submit } from './commands/submit.js';
import { template } from './commands/template.js';
import { profileExport, profileImport } from './commands/profile-file.js';
import { profileAddHl7, profileList, profileRemove } from './commands/profile.js';
import { retention } from './commands/retention.js';
import { retry } from './commands/retry.js';
import { serve } from './commands/serve.js';
import { terminalLine, terminalText } from './terminal-text.js';
import { usageText } from './usage.js';

type Options = NonNullable<ParseArgsConfig['options']>;

const GLOBAL: Options = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
};

/** Options each command takes besides the global ones. */
const COMMAND_OPTIONS: Record<string, Options> = {
  'env add': {
    api: { type: 'string' },
    issuer: { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    'client-secret-env': { type: 'string' },
    'client-secret-stdin': { type: 'boolean', default: false },
    unverified: { type: 'boolean', default: false },
    grant: { type: 'string' },
  },
  'env list': {},
  login: {},
  logout: {},
  template: { guide: { type: 'string' } },
  import: {
    env: { type: 'string' },
    profile: { type: 'string' },
    'no-profile': { type: 'boolean', default: false },
    'problem-text': { type: 'boolean', default: false },
    encoding: { type: 'string' },
    route: { type: 'string' },
  },
  'batch list': { env: { type: 'string' }, limit: { type: 'string' }, before: { type: 'string' } },
  'batch show': {},
  'batch check': { fresh: { type: 'boolean', default: false } },
  'batch export': { template: { type: 'string' } },
  'batch errors': {},
  accept: {},
  submit: { env: { type: 'string' }, 'until-idle': { type: 'boolean', default: false } },
  status: { refresh: { type: 'boolean', default: false }, env: { type: 'string' } },
  cancel: { reason: { type: 'string' }, env: { type: 'string' }, clinic: { type: 'string' } },
  retry: { held: { type: 'boolean', default: false }, env: { type: 'string' }, clinic: { type: 'string' } },
  'log export': {
    format: { type: 'string' },
    unmask: { type: 'boolean', default: false },
    out: { type: 'string' },
    env: { type: 'string' },
    'clinic-order-id': { type: 'string' },
    action: { type: 'string' },
    search: { type: 'string' },
  },
  'log verify': {},
  retention: {
    'staged-days': { type: 'string' },
    run: { type: 'boolean', default: false },
    vacuum: { type: 'boolean', default: false },
  },
  serve: {
    env: { type: 'string' },
    mllp: { type: 'string' },
    watch: { type: 'string', multiple: true },
    allow: { type: 'string', multiple: true },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'tls-client-ca': { type: 'string' },
    'on-arrival': { type: 'string' },
    'send-from': { type: 'string', multiple: true },
    'hold-from': { type: 'string', multiple: true },
    'max-message-bytes': { type: 'string' },
    'max-connections': { type: 'string' },
    'progress-seconds': { type: 'string' },
    ui: { type: 'string' },
  },
  'profile add-hl7': {
    sender: { type: 'string' },
    'message-type': { type: 'string' },
    set: { type: 'string', multiple: true },
    clinic: { type: 'string', multiple: true },
    peer: { type: 'string', multiple: true },
  },
  'profile list': {},
  'profile remove': {},
  'profile export': {},
  'profile import': { name: { type: 'string' } },
  'intake rules': {
    env: { type: 'string' },
    'on-arrival': { type: 'string' },
    'send-from': { type: 'string', multiple: true },
    'hold-from': { type: 'string', multiple: true },
    forget: { type: 'string', multiple: true },
  },
};

/** How many positionals (after the command words) each command takes. */
const POSITIONALS: Record<string, string[]> = {
  'env add': ['NAME'],
  login: ['ENV'],
  logout: ['ENV'],
  template: ['FILE'],
  import: ['FILE'],
  accept: ['BATCH'],
  'batch show': ['BATCH'],
  'batch check': ['BATCH'],
  'batch export': ['BATCH'],
  'batch errors': ['BATCH', 'FILE'],
  cancel: ['CLINIC_ORDER_ID'],
  'profile add-hl7': ['NAME'],
  'profile remove': ['NAME'],
  'profile export': ['NAME', 'FILE'],
  'profile import': ['FILE'],
};

/** Commands that take any number of their one positional (the command says when it needs some). */
const REPEATED_POSITIONAL = new Set(['retry']);

/** Commands with an option that carries a secret. */
const TAKES_SECRET = new Set(['env add']);

function commandOf(words: string[]): string | undefined {
  const two = words.slice(0, 2).join(' ');
  if (COMMAND_OPTIONS[two]) return two;
  return COMMAND_OPTIONS[words[0] ?? ''] && !['env', 'log', 'batch', 'profile'].includes(words[0] ?? '')
    ? words[0]
    : undefined;
}

/**
 * parseArgs's refusal in the CLI's words. Its own text for an unknown option suggests passing the mistyped flag as an
 * argument ("place it at the end of the command after '--'"), which no command here takes.
 */
function parseArgsProblem(error: unknown, command: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /^Unknown option '([^']*)'/.exec(message);
  if (!unknown) return message;
  const own = Object.keys(COMMAND_OPTIONS[command] ?? {}).map((name) => `--${name}`);
  return `rx-batch ${command} has no option '${unknown[1]}'${own.length > 0 ? ` (its options: ${own.join(', ')})` : ''}`;
}

function batchNumber(text: string): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) < 1) throw new UsageError('BATCH must be a batch number');
  return Number(text);
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export const CLIENT_SECRET_ON_COMMAND_LINE =
  'warning: --client-secret puts the secret on the command line, which every local user can read (ps) while ' +
  'env add runs and your shell keeps in its history; give it with --client-secret-env VAR or ' +
  '--client-secret-stdin instead';

/**
 * `--client-secret S`; `--client-secret-env VAR` naming an environment variable that holds it (a scheduler's
 * secret store can set that variable); or `--client-secret-stdin`, the secret piped in on standard input. The last
 * two keep the secret out of the process list and the shell history.
 */
async function clientSecretOf(values: Record<string, unknown>, io: CliIo): Promise<{ clientSecret?: string }> {
  const given = optional(values, 'client-secret');
  const variable = optional(values, 'client-secret-env');
  const fromStdin = values['client-secret-stdin'] === true;
  const options = [
    given !== undefined ? '--client-secret' : null,
    variable !== undefined ? '--client-secret-env' : null,
    fromStdin ? '--client-secret-stdin' : null,
  ].filter((option) => option !== null);
  if (options.length === 2) throw new UsageError(`give ${options.join(' or ')}, not both`);
  if (options.length > 2) throw new UsageError(`give only one of ${options.join(', ')}`);
  if (fromStdin) return { clientSecret: await secretFromStdin(io.stdin) };
  if (variable === undefined && given !== undefined) {
    // Still taken (the documented commands and scripts use it), but said each time: the process list shows every
    // local user the command line while env add runs, and the shell keeps it in its history.
    io.stderr.write(`${CLIENT_SECRET_ON_COMMAND_LINE}\n`);
    return { clientSecret: given };
  }
  if (variable === undefined) return {};
  const secret = io.env[variable];
  if (!secret) throw new UsageError(`--client-secret-env: the environment variable ${variable} is not set or empty`);
  return { clientSecret: secret };
}

/** A secret is short; anything longer on standard input is a mistake (a file piped in by accident). */
const MAX_STDIN_SECRET_BYTES = 64 * 1024;

/** Reads standard input to its end and takes off one trailing newline (`echo`, `printf '%s\n'`, a file's last line). */
async function secretFromStdin(stdin: CliIo['stdin']): Promise<string> {
  if (!stdin) throw new UsageError('--client-secret-stdin: there is no standard input to read');
  if (stdin.isTTY) {
    throw new UsageError('--client-secret-stdin: standard input is a terminal; pipe the secret in instead');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    size += bytes.length;
    if (size > MAX_STDIN_SECRET_BYTES) {
      throw new UsageError(`--client-secret-stdin: more than ${MAX_STDIN_SECRET_BYTES} bytes on standard input`);
    }
    chunks.push(bytes);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '') throw new UsageError('--client-secret-stdin: standard input was empty');
  return secret;
}

function optional(values: Record<string, unknown>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function list(values: Record<string, unknown>, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The string options given, under the names a command's arguments use. */
function optionalArgs<K extends string>(
  values: Record<string, unknown>,
  names: Record<K, string>,
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const [key, option] of Object.entries(names) as Array<[K, string]>) {
    const value = optional(values, option);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * `serve --ui` takes an address or none: a bare `--ui` (last, or before another option) becomes `--ui=`, the
 * default address, since parseArgs has no options with an optional value.
 */
function withBareUi(argv: string[]): string[] {
  return argv.map((arg, i) => {
    if (arg !== '--ui') return arg;
    const next = argv[i + 1];
    return next === undefined || next.startsWith('-') ? '--ui=' : arg;
  });
}

/**
 * Runs one CLI command and resolves with its exit code (0 done, 1 needs attention, 2 usage or input error).
 * Every error ends as one line on stderr; the store is closed (and its lock released) before returning.
 */
export async function runCli(given: string[], io: CliIo): Promise<number> {
  const argv = withBareUi(given);
  // A loose first pass finds the command words wherever the options are (`--data-dir X status` works too).
  const loose = parseArgs({
    args: argv,
    options: Object.assign({}, GLOBAL, ...Object.values(COMMAND_OPTIONS)) as Options,
    allowPositionals: true,
    strict: false,
  });
  const command = commandOf(loose.positionals.slice(0, 2));
  if (!command) {
    if (argv.includes('--help') || argv.length === 0) {
      io.stdout.write(`${usageText()}\n`);
      return EXIT.ok;
    }
    // Only the command words: an option's value may be a client secret (and stderr often ends up in a log).
    const typed = loose.positionals.slice(0, 2);
    const words = terminalLine(typed.join(' '));
    const hint = words ? commandSuggestion(typed, Object.keys(COMMAND_OPTIONS)) : undefined;
    io.stderr.write(
      `${words ? `unknown command: ${words}` : 'no command given'}\n${hint ? `${terminalLine(hint)}\n` : ''}See rx-batch --help.\n`,
    );
    return EXIT.usage;
  }

  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...GLOBAL, ...COMMAND_OPTIONS[command] },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.stderr.write(`${terminalText(parseArgsProblem(error, command))}\nSee rx-batch --help.\n`);
    return EXIT.usage;
  }
  const { values } = parsed;
  // An empty value (an unset variable in a script) would name the current folder, `/` under a service manager.
  if (values['data-dir'] === '') {
    io.stderr.write('--data-dir needs a folder: it was given an empty value\nSee rx-batch --help.\n');
    return EXIT.usage;
  }
  if (values.help) {
    io.stdout.write(`${usageText()}\n`);
    return EXIT.ok;
  }
  const positionals = parsed.positionals.slice(command.split(' ').length);
  const expected = POSITIONALS[command] ?? [];
  if (!REPEATED_POSITIONAL.has(command) && positionals.length !== expected.length) {
    const extra = positionals.slice(expected.length);
    // A stray argument of a command that takes a secret may be the secret (`--client-secret-stdin S`): counted only.
    const shown = TAKES_SECRET.has(command) ? `${extra.length} more` : `"${terminalLine(extra.join(' '))}"`;
    io.stderr.write(
      `rx-batch ${command} takes ${expected.length ? expected.join(' ') : 'no arguments'}` +
        `${extra.length > 0 ? `, not ${shown}` : ''}\n` +
        'See rx-batch --help.\n',
    );
    return EXIT.usage;
  }

  const ctx = new CliContext(io, {
    dataDir: resolveDataDir(optional(values, 'data-dir'), io.env),
    json: values.json === true,
    verbose: values.verbose === true,
    command,
  });
  try {
    await ctx.open();
    return await dispatch(ctx, command, values, positionals);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${terminalLine(error.message)}\nSee rx-batch --help.\n`);
      return EXIT.usage;
    }
    if (error instanceof InputError || error instanceof StoreLockedError || error instanceof PrivateDirError) {
      io.stderr.write(`${terminalLine(error.message)}\n`);
      return EXIT.usage;
    }
    // Unexpected: the message, never a stack with request details.
    io.stderr.write(
      `rx-batch ${command} failed: ${terminalLine(error instanceof Error ? error.message : String(error))}\n`,
    );
    return EXIT.attention;
  } finally {
    await ctx.close();
  }
}

async function dispatch(
  ctx: CliContext,
  command: string,
  values: Record<string, unknown>,
  positionals: string[],
): Promise<number> {
  const [first = ''] = positionals;
  switch (command) {
    case 'env add':
      return envAdd(ctx, {
        name: first,
        api: required(values, 'api'),
        issuer: required(values, 'issuer'),
        clientId: required(values, 'client-id'),
        ...(await clientSecretOf(values, ctx.io)),
        unverified: values.unverified === true,
        ...(optional(values, 'grant') !== undefined ? { grant: optional(values, 'grant')! } : {}),
      });
    case 'env list':
      return envList(ctx);
    case 'login':
      return login(ctx, first);
    case 'logout':
      return logout(ctx, first);
    case 'template':
      return template(ctx, first, optional(values, 'guide'));
    case 'import':
      return importBatch(ctx, {
        file: first,
        environmentId: required(values, 'env'),
        ...(optional(values, 'profile') !== undefined ? { profile: optional(values, 'profile')! } : {}),
        noProfile: values['no-profile'] === true,
        ...(optional(values, 'encoding') !== undefined ? { encoding: optional(values, 'encoding')! } : {}),
        ...(optional(values, 'route') !== undefined ? { route: optional(values, 'route')! } : {}),
        problemText: values['problem-text'] === true,
      });
    case 'accept':
      return accept(ctx, batchNumber(first));
    case 'batch list': {
      const limit = wholeNumber('limit', optional(values, 'limit'), 1, 500);
      const before = wholeNumber('before', optional(values, 'before'), 1, Number.MAX_SAFE_INTEGER);
      return batchList(ctx, {
        ...optionalArgs(values, { environmentId: 'env' }),
        ...(limit !== undefined ? { limit } : {}),
        ...(before !== undefined ? { before } : {}),
      });
    }
    case 'batch show':
      return batchShow(ctx, batchNumber(first));
    case 'batch check':
      return batchCheck(ctx, { batchId: batchNumber(first), fresh: values.fresh === true });
    case 'batch export':
      return batchExportTemplate(ctx, batchNumber(first), required(values, 'template'));
    case 'batch errors':
      return batchErrors(ctx, batchNumber(first), positionals[1]!);
    case 'serve':
      return serve(ctx, {
        environmentId: required(values, 'env'),
        watch: list(values, 'watch'),
        allow: list(values, 'allow'),
        sendFrom: list(values, 'send-from'),
        holdFrom: list(values, 'hold-from'),
        ...optionalArgs(values, {
          mllp: 'mllp',
          tlsCert: 'tls-cert',
          tlsKey: 'tls-key',
          tlsClientCa: 'tls-client-ca',
          onArrival: 'on-arrival',
          maxMessageBytes: 'max-message-bytes',
          maxConnections: 'max-connections',
          progressSeconds: 'progress-seconds',
          ui: 'ui',
        }),
      });
    case 'profile add-hl7':
      return profileAddHl7(ctx, {
        name: first,
        sender: required(values, 'sender'),
        set: list(values, 'set'),
        clinics: list(values, 'clinic'),
        peers: list(values, 'peer'),
        ...optionalArgs(values, { messageType: 'message-type' }),
      });
    case 'profile list':
      return profileList(ctx);
    case 'intake rules':
      return intakeRules(ctx, {
        environmentId: required(values, 'env'),
        sendFrom: list(values, 'send-from'),
        holdFrom: list(values, 'hold-from'),
        forget: list(values, 'forget'),
        ...optionalArgs(values, { onArrival: 'on-arrival' }),
      });
    case 'profile remove':
      return profileRemove(ctx, first);
    case 'profile export':
      return profileExport(ctx, first, positionals[1]!);
    case 'profile import':
      return profileImport(ctx, first, optional(values, 'name'));
    case 'submit':
      return submit(ctx, required(values, 'env'), values['until-idle'] === true);
    case 'status':
      return status(ctx, {
        refresh: values.refresh === true,
        ...(optional(values, 'env') ? { environmentId: optional(values, 'env')! } : {}),
      });
    case 'cancel':
      return cancel(ctx, first, required(values, 'reason'), {
        ...(optional(values, 'env') ? { environmentId: optional(values, 'env')! } : {}),
        ...(optional(values, 'clinic') ? { clinicCode: optional(values, 'clinic')! } : {}),
      });
    case 'retry':
      return retry(ctx, {
        clinicOrderIds: positionals,
        held: values.held === true,
        ...optionalArgs(values, { environmentId: 'env', clinicCode: 'clinic' }),
      });
    case 'log export':
      return logExport(ctx, {
        format: required(values, 'format'),
        unmask: values.unmask === true,
        ...(optional(values, 'out') ? { out: optional(values, 'out')! } : {}),
        filter: optionalArgs(values, {
          environmentId: 'env',
          clinicOrderId: 'clinic-order-id',
          action: 'action',
          search: 'search',
        }),
      });
    case 'log verify':
      return logVerify(ctx);
    case 'retention':
      return retention(ctx, {
        ...(optional(values, 'staged-days') !== undefined ? { stagedDays: optional(values, 'staged-days')! } : {}),
        run: values.run === true,
        vacuum: values.vacuum === true,
      });
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}
