import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { FolderWatcher } from '../../core/intake/folder-watcher.js';
import { describeIntakeRules } from '../../../shared/intake-rules.js';
import { serviceRules, withOverrides } from '../../core/intake/intake-rules.js';
import { IntakeService, type IntakeResult } from '../../core/intake/intake-service.js';
import {
  DEFAULT_MLLP_MESSAGE_BYTES,
  MAX_MLLP_CONNECTIONS,
  MLLP_LIMITS,
  MllpListener,
} from '../../core/intake/mllp-listener.js';
import { admitsOtherComputers, unboundWarning } from '../../core/intake/sender-binding.js';
import { createLogger } from '../../core/platform/logger.js';
import { ServedIntake } from '../../core/intake/served-intake.js';
import { StagingService } from '../../core/staging/staging-service.js';
import { lastIntakeMessageId } from '../../core/store/intake-fed-batches.js';
import { inProcessRowSink } from '../../core/store/staged-batch-writer.js';
import { appVersion, type CliContext } from '../cli-context.js';
import { EXIT, InputError, UsageError, wholeNumber } from '../cli-errors.js';
import { terminalText } from '../terminal-text.js';
import { ruleFlags } from './intake-rules.js';
import { startServeUi, uiPort, type ServeUi } from './serve-ui.js';
import { tlsFileWarnings } from './tls-files.js';
import { folderAccessWarning } from '../../core/intake/folder-access.js';

/**
 * `serve --env ENV [--mllp HOST:PORT] [--watch DIR]…`: live intake, unattended. Runs the submitter and the status
 * poller for ENV, an MLLP listener and folder watchers that stage what arrives (and, with the `send` rule, accept
 * valid orders into the outbox at once), until SIGTERM/SIGINT. When ready it prints `mllp: HOST:PORT` and
 * `watching: DIR` (one line each), then a progress line now and then. The staging rules are the environment's saved
 * ones (`rx-batch intake rules`, the Intake screen); --on-arrival, --send-from and --hold-from override them for
 * this run only (the default given replaces the saved default; a sender given gets that rule, the other saved
 * senders keep theirs), and the rules in force are said on stderr. Stopping: the listener stops taking
 * connections, the message being handled is finished and acknowledged, the watchers finish the file in hand, then
 * the outbox stops as `submit` does (requests unanswered are recorded in doubt) and the store closes; "Stopped."
 * is the last line. With `--ui [127.0.0.1:PORT]` it also serves the app's page over these same services (serve-ui.ts),
 * prints `ui: http://127.0.0.1:PORT/` (no secret: that is in the data directory's 0600 launcher) once ready, and
 * stops serving it first when stopping.
 */

export interface ServeArgs {
  environmentId: string;
  mllp?: string;
  watch: string[];
  allow: string[];
  tlsCert?: string;
  tlsKey?: string;
  /** Mutual TLS: the CA (PEM) whose certificates peers must present. */
  tlsClientCa?: string;
  onArrival?: string;
  sendFrom: string[];
  holdFrom: string[];
  maxMessageBytes?: string;
  /** At most this many MLLP connections at once (MAX_MLLP_CONNECTIONS when not given). */
  maxConnections?: string;
  progressSeconds?: string;
  /** `--ui`: '' for the default address, else `[127.0.0.1:]PORT`; absent: no page. */
  ui?: string;
}

function hostPort(text: string): { host: string; port: number } {
  const at = text.lastIndexOf(':');
  const host = at > 0 ? text.slice(0, at).replace(/^\[|\]$/g, '') : '127.0.0.1';
  const portText = at >= 0 ? text.slice(at + 1) : text;
  // Digits only: Number() also reads "", "0x9", "1e3" and " 25" (an empty port listened on a random one).
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port <= 65535) || host === '') throw new UsageError(`--mllp takes HOST:PORT, not "${text.slice(0, 100)}"`);
  return { host, port };
}

export async function serve(ctx: CliContext, args: ServeArgs): Promise<number> {
  if (!args.mllp && args.watch.length === 0) throw new UsageError('serve needs --mllp HOST:PORT, --watch DIR, or both');
  const maxMessageBytes = wholeNumber('max-message-bytes', args.maxMessageBytes, 1024, MLLP_LIMITS.messageBytes);
  const maxConnections = wholeNumber('max-connections', args.maxConnections, 1, MLLP_LIMITS.connections);
  const progressSeconds = wholeNumber('progress-seconds', args.progressSeconds, 1, 86_400) ?? 30;
  const address = args.mllp !== undefined ? hostPort(args.mllp) : undefined;
  if (!args.mllp && (maxMessageBytes !== undefined || maxConnections !== undefined)) {
    throw new UsageError('--max-message-bytes and --max-connections are limits of the MLLP listener: give --mllp');
  }
  // Every connection may hold an unfinished frame of the largest size: the product is memory the core could need.
  const buffered = (maxConnections ?? MAX_MLLP_CONNECTIONS) * (maxMessageBytes ?? DEFAULT_MLLP_MESSAGE_BYTES);
  if (buffered > MLLP_LIMITS.bufferedBytes) {
    throw new UsageError(
      `--max-connections × --max-message-bytes is ${Math.ceil(buffered / 1024 ** 3)} GiB of unfinished messages the ` +
        `listener could hold; at most ${MLLP_LIMITS.bufferedBytes / 1024 ** 3} GiB`,
    );
  }
  if (Boolean(args.tlsCert) !== Boolean(args.tlsKey)) throw new UsageError('--tls-cert and --tls-key go together');
  if (args.tlsClientCa && !args.tlsCert) {
    throw new UsageError('--tls-client-ca needs --tls-cert and --tls-key (client certificates are checked over TLS)');
  }
  // A key others can read, or TLS files others can change: said, not refused (tls-files.ts).
  for (const warning of await tlsFileWarnings(args)) ctx.warn(warning);
  const { registry, outbox, poller, store, events } = ctx.services;
  const environmentId = args.environmentId;
  await ctx.embeddedSandboxFor(environmentId);
  const environment = ctx.environment(environmentId);
  if (!environment.clientId) throw new InputError(`${environmentId} has no client id: run rx-batch env add`);
  const ui = args.ui !== undefined ? { port: uiPort(args.ui) } : undefined;
  const overrides = ruleFlags(args);
  const saved = store.intakeRules.get(environmentId);
  const rules = withOverrides(saved.rules, overrides);
  const folders: string[] = [];
  for (const dir of args.watch) {
    const path = resolve(dir);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isDirectory()) throw new InputError(`--watch ${dir}: is not a folder`);
    folders.push(path);
  }
  // Others can write in a folder, or list it: said, not refused (folder-access.ts).
  for (const folder of folders) {
    const access = folderAccessWarning(folder);
    if (access) ctx.warn(`warning: --watch ${folder}: ${access}`);
  }
  // JSON escapes C0 controls but not DEL and C1 (a watched file's name can hold them): terminalText does.
  const logger = createLogger('rx-batch-serve', (line) => ctx.io.stderr.write(`${terminalText(line)}\n`));
  // Intake imports are one message or file at a time: written on this thread (no worker per message).
  const staging = new StagingService({
    store,
    codeListsFor: (id) => registry.get(id).codeLists,
    notifyOutbox: (id) => outbox.notify(id),
    onBatchChanged: (change) => events.emit('batches.changed', change),
    openRowSink: inProcessRowSink,
  });
  // Files may be large: written by a worker thread while this one parses, as `rx-batch import` does.
  const folderStaging = new StagingService({
    store,
    codeListsFor: (id) => registry.get(id).codeLists,
    notifyOutbox: (id) => outbox.notify(id),
    onBatchChanged: (change) => events.emit('batches.changed', change),
  });
  const tally = { AA: 0, AE: 0, AR: 0, resent: 0, files: 0 };
  // What the page shows under --ui: the intake rows after this one are this run's.
  const served = ui
    ? new ServedIntake({
        store,
        environmentId,
        rules,
        afterMessageId: lastIntakeMessageId(store.db),
        pid: process.pid,
        onChanged: (status) => events.emit('intake.changed', status),
      })
    : undefined;
  const intake = new IntakeService({
    store,
    staging,
    environmentId,
    rules: serviceRules(rules),
    logger,
    onOutcome: (result: IntakeResult) => {
      if (result.resent) tally.resent += 1;
      else tally[result.code] += 1;
    },
    // A day batch grew: a page open on it (--ui) refetches it.
    onStaged: (batchId) => events.emit('batches.changed', { environmentId, batchId }),
  });
  const flags = [
    args.onArrival !== undefined ? '--on-arrival' : '',
    args.sendFrom.length > 0 ? '--send-from' : '',
    args.holdFrom.length > 0 ? '--hold-from' : '',
  ].filter(Boolean);
  const from = saved.updatedAt === null ? `none saved for ${environmentId}` : `saved for ${environmentId}`;
  ctx.warn(
    `rules: ${describeIntakeRules(rules)} (${from}${flags.length > 0 ? `; ${flags.join(', ')} for this run` : ''})`,
  );
  if (rules.onArrival === 'hold' || rules.senders.some((rule) => rule.onArrival === 'hold')) {
    // Held orders go nowhere until someone accepts them: say where they wait.
    ctx.warn(
      `held orders wait for review in a batch per sender a day: rx-batch batch list --env ${environmentId}, ` +
        "then batch show and accept; or the app's Import screen",
    );
  }
  const recovered = await intake.recover();
  if (recovered > 0) ctx.warn(`${recovered} messages received before a stop were staged now.`);

  outbox.start(environmentId);
  poller.start(environmentId);
  let listener: MllpListener | undefined;
  let page: ServeUi | undefined;
  const watchers: FolderWatcher[] = [];
  const keepAlive = setInterval(() => undefined, 60_000);
  let progressTimer: NodeJS.Timeout | undefined;
  try {
    if (args.mllp !== undefined && address) {
      const { host, port } = address;
      // A sender is whatever its MSH-3/MSH-4 say: said once per profile that does not bind it (finding 27).
      if (admitsOtherComputers(host, args.allow)) {
        for (const { profile } of store.mappingProfiles.list()) {
          const warning = unboundWarning(profile);
          if (warning) ctx.warn(warning);
        }
      }
      const mllp = new MllpListener({
        host,
        port,
        // Without --ui, nothing is counted for a page.
        handle: !served
          ? (raw, peer) => intake.handle(raw, peer)
          : async (raw, peer) => {
              const result = await intake.handle(raw, peer);
              shown?.answered(raw, peer, result);
              return result;
            },
        onRefusal: (refusal) => {
          intake.recordRefusal(refusal);
          shown?.refused(refusal);
        },
        logger,
        ...(args.allow.length > 0 ? { allow: args.allow } : {}),
        ...(args.tlsCert && args.tlsKey
          ? {
              tls: {
                certPath: args.tlsCert,
                keyPath: args.tlsKey,
                ...(args.tlsClientCa ? { clientCaPath: args.tlsClientCa } : {}),
              },
            }
          : {}),
        ...(maxMessageBytes !== undefined ? { maxMessageBytes } : {}),
        ...(maxConnections !== undefined ? { maxConnections } : {}),
      });
      listener = mllp;
      const shown = served?.listener(mllp, args.mllp);
      const bound = await mllp.listen();
      shown?.bound(`${bound.host}:${bound.port}`);
      ctx.line(`mllp: ${bound.host}:${bound.port}`);
    }
    for (const dir of folders) {
      const watcher = new FolderWatcher({
        dir,
        environmentId,
        store,
        staging: folderStaging,
        repo: intake.repo,
        // An HL7 file follows its senders' rules (hold wins), a CSV file the default (watched-file-rule.ts).
        rules: serviceRules(rules),
        logger,
        onFile: (file) => {
          if (file.outcome !== 'waiting') tally.files += 1;
          shownFile?.(file);
        },
      });
      const shownFile = served?.watching(dir, watcher);
      watcher.start();
      watchers.push(watcher);
      ctx.line(`watching: ${dir}`);
    }
    if (ui && served) {
      page = await startServeUi({
        services: ctx.services,
        dataDir: ctx.options.dataDir,
        appVersion: appVersion(),
        intake: served,
        port: ui.port,
      }).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new InputError(`--ui: port ${ui.port} on 127.0.0.1 is in use by another program`);
        }
        throw error;
      });
      ctx.line(`ui: ${page.origin}/`);
    }
    const every = progressSeconds * 1000;
    progressTimer = setInterval(() => {
      const c = outbox.progress(environmentId).counts;
      ctx.line(
        `intake: ${tally.AA} AA, ${tally.AE} AE, ${tally.AR} AR, ${tally.resent} resent, ${tally.files} files` +
          `${listener ? `, ${listener.stats.connections} connected` : ''}; outbox: ${c.created ?? 0} created, ` +
          `${c.queued ?? 0} queued, ${(c.sending ?? 0) + (c.in_doubt ?? 0)} in flight or in doubt`,
      );
    }, every);
    await new Promise<void>((done) => {
      if (ctx.io.signal.aborted) done();
      else ctx.io.signal.addEventListener('abort', () => done(), { once: true });
    });
  } finally {
    clearInterval(keepAlive);
    if (progressTimer) clearInterval(progressTimer);
    // The page first: no new calls while the intake and the outbox wind down.
    await page?.close();
    served?.stopped();
    await listener?.close();
    await Promise.all(watchers.map((w) => w.stop()));
    await intake.close();
    await outbox.stop();
  }
  const counts = outbox.progress(environmentId).counts;
  await ctx.close();
  ctx.line(
    `Stopped. intake: ${tally.AA} AA, ${tally.AE} AE, ${tally.AR} AR, ${tally.resent} resent, ${tally.files} files; ` +
      `outbox: ${counts.created ?? 0} created, ${counts.queued ?? 0} queued.`,
  );
  return EXIT.ok;
}
