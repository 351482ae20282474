import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { openServices } from '../core/app-core.js';
import type { AppServices } from '../core/app-services.js';
import { PLAIN_SECRETS_FILE, plainFileSecrets } from '../core/audit/chain-key.js';
import { servedByEmbeddedSandbox, startEmbeddedSandbox } from '../core/embedded-sandbox.js';
import { createLogger, silentLogger } from '../core/platform/logger.js';
import type { EnvironmentProfile } from '../core/store/environments-repo.js';
import { defaultDataDir } from '../bridge/data-dir.js';
import { InputError } from './cli-errors.js';
import { terminalLine, terminalText } from './terminal-text.js';

/** The CLI's sign-ins, client secrets and audit key (0600, plain text); browser mode keeps its audit key here too. */
export const CLI_SECRETS_FILE = PLAIN_SECRETS_FILE;

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM: long commands (submit, login) wind down and close the store. */
  signal: AbortSignal;
  /** Standard input, read only by `env add --client-secret-stdin`; absent in-process. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export interface GlobalOptions {
  dataDir: string;
  json: boolean;
  verbose: boolean;
  /** The command (`serve`, `import`…), named to another program that finds the data directory taken. */
  command?: string;
}

/** What every command gets: its options, output helpers, and the services (opened on first use). */
export class CliContext {
  readonly io: CliIo;
  readonly options: GlobalOptions;
  #services: AppServices | undefined;
  /** Stops the local sandbox this run started for a command that talks to it (embeddedSandboxFor). */
  #sandboxClose: (() => Promise<void>) | undefined;

  constructor(io: CliIo, options: GlobalOptions) {
    this.io = io;
    this.options = options;
  }

  /** Opens the store (taking the data directory's lock), the services over it and the audit key; once. */
  async open(): Promise<AppServices> {
    this.#services ??= await openServices({
      dataDir: this.options.dataDir,
      appVersion: appVersion(),
      secrets: plainFileSecrets(this.options.dataDir),
      logger: this.options.verbose ? createLogger('rx-batch-cli') : silentLogger,
      owner: this.options.command ? `rx-batch ${this.options.command}` : 'rx-batch',
    });
    return this.#services;
  }

  /** The services `open` opened (runCli opens them before any command runs). */
  get services(): AppServices {
    if (!this.#services) throw new Error('the services are not open yet');
    return this.#services;
  }

  /** The environment a command names, or the input error every command gives for one the store does not have. */
  environment(environmentId: string): EnvironmentProfile {
    const environment = this.services.registry.find(environmentId);
    if (!environment) {
      const known = this.services.registry.list().map((view) => view.id);
      throw new InputError(
        `there is no environment "${environmentId}"${known.length > 0 ? `; there are ${known.join(', ')} (rx-batch env list)` : ''}`,
      );
    }
    return environment;
  }

  /**
   * Starts the local sandbox, once, when `environmentId` is served by it (core/embedded-sandbox.ts): only the app or
   * this run can have it running, so a command that talks to the service would otherwise reach a port nothing of
   * ours listens on. Environments elsewhere, or the local one pointed at a sandbox of the admin's own, start nothing.
   */
  async embeddedSandboxFor(environmentId: string): Promise<void> {
    if (this.#sandboxClose) return;
    const services = this.services;
    const environment = services.registry.find(environmentId);
    if (!environment || !servedByEmbeddedSandbox(environment, this.options.dataDir)) return;
    this.#sandboxClose = await startEmbeddedSandbox(services, this.options.dataDir, {
      logger: this.options.verbose ? createLogger('rx-batch-cli') : silentLogger,
    });
  }

  line(text = ''): void {
    this.io.stdout.write(`${terminalLine(text)}\n`);
  }

  warn(text: string): void {
    this.io.stderr.write(`${terminalLine(text)}\n`);
  }

  json(value: unknown): void {
    this.jsonText(`${JSON.stringify(value)}\n`);
  }

  /**
   * JSON text (whole or a piece of a document written in parts). JSON.stringify leaves DEL and the C1 controls raw,
   * and a terminal runs U+009B as CSI; written as `\u009b` the JSON reads the same (docs/security.md, finding 19).
   */
  jsonText(text: string): void {
    this.io.stdout.write(terminalText(text));
  }

  async close(): Promise<void> {
    // The services (outbox, poller) settle before the sandbox they talk to goes.
    try {
      await this.#services?.close();
    } finally {
      await this.#sandboxClose?.();
    }
  }
}

export function resolveDataDir(given: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(given ?? (env.RXBATCH_DATA_DIR || defaultDataDir(env)));
}

/** package.json's version: what the CLI names itself to the store and, under `serve --ui`, to the page. */
export function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
