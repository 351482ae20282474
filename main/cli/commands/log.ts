import { createWriteStream, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { logFilterSchema, type LogFilter } from '../../../shared/log-contract.js';
import { exportAuditLog } from '../../core/audit/export-log.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, UsageError } from '../cli-errors.js';
import { openExportFile } from '../export-file.js';
import { terminalText } from '../terminal-text.js';

/** A progress line at most this often (on stderr, so stdout stays the result). */
const PROGRESS_LINE_MS = 1000;

/**
 * Writes through to stdout without ending it when the export ends (the process still owns stdout). `escape`: what a
 * terminal would run as a command is written as a visible escape (finding 19): lossless for JSON Lines (JSON reads
 * `\u009b` as the character), for CSV only on a terminal, where a person reads it (into a pipe it stays exact).
 */
function keepOpen(target: NodeJS.WritableStream, escape: boolean): Writable {
  return new Writable({
    // Strings as the export wrote them, whole: a character is never split between two chunks.
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, done) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (target.write(escape ? terminalText(text) : text)) done();
      else target.once('drain', () => done());
    },
  });
}

/** A new file, or an existing plain one of this user's emptied, private before the first byte (export-file.ts). */
async function privateFileStream(path: string) {
  return createWriteStream(path, { fd: await openExportFile(path) });
}

/** The Log screen's filters as the CLI names them. */
const FILTER_OPTIONS: Record<keyof LogFilter, string | undefined> = {
  environmentId: '--env',
  clinicOrderId: '--clinic-order-id',
  action: '--action',
  search: '--search',
  orderId: undefined,
};

/** The filters given, checked as the app checks the Log screen's (a usage error naming the option). */
function filterOf(given: Partial<Record<keyof LogFilter, string>>): LogFilter | undefined {
  if (Object.keys(given).length === 0) return undefined;
  const parsed = logFilterSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const option = FILTER_OPTIONS[issue.path[0] as keyof LogFilter] ?? String(issue.path[0]);
  throw new UsageError(`${option}: ${issue.code === 'too_big' ? 'too long' : 'needs a value'}`);
}

export interface LogExportOptions {
  format: string;
  unmask: boolean;
  out?: string;
  /** The Log screen's filters (`--env`, `--clinic-order-id`, `--action`, `--search`): only the entries it shows. */
  filter?: Partial<Record<'environmentId' | 'clinicOrderId' | 'action' | 'search', string>>;
}

export async function logExport(ctx: CliContext, options: LogExportOptions): Promise<number> {
  if (options.format !== 'csv' && options.format !== 'jsonl') throw new UsageError('--format must be csv or jsonl');
  const format = options.format;
  const filter = filterOf(options.filter ?? {});
  const { store } = ctx.services;
  if (filter?.environmentId !== undefined) ctx.environment(filter.environmentId);
  // As the Log screen's export: filters that match nothing write nothing (a file of column names reads as an
  // export) and record nothing.
  if (filter && store.audit.filteredPage(filter, 0, 1).length === 0) {
    if (ctx.options.json) ctx.json({ format, masked: !options.unmask, count: 0, filtered: true });
    else ctx.warn('No audit entry matches these filters; nothing was written.');
    return EXIT.ok;
  }
  // The export holds patient-linked identifiers (masked or not): readable by its owner only.
  const onTerminal = (ctx.io.stdout as { isTTY?: boolean }).isTTY === true;
  const out = options.out
    ? await privateFileStream(options.out)
    : keepOpen(ctx.io.stdout, format === 'jsonl' || onTerminal);
  // Progress on stderr about once a second (a file export only: stdout may be the export itself); SIGINT/SIGTERM
  // stops it between pages, and a half-written file is removed.
  // A filtered export's count is not known before it ends.
  const total = filter ? undefined : store.audit.lastSeq();
  let lastLine = -Infinity;
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  ctx.io.signal.addEventListener('abort', stop, { once: true });
  if (ctx.io.signal.aborted) stop();
  let count: number;
  try {
    ({ count } = await exportAuditLog(store, out, {
      format,
      unmask: options.unmask,
      ...(filter ? { filter } : {}),
      signal: controller.signal,
      onProgress: (written) => {
        const now = Date.now();
        if (!options.out || ctx.options.json || now - lastLine < PROGRESS_LINE_MS) return;
        lastLine = now;
        ctx.warn(
          total === undefined
            ? `Exporting the audit log: ${written} matching entries so far`
            : `Exporting the audit log: ${written} of ${total} entries (${Math.floor((written / Math.max(total, 1)) * 100)}%)`,
        );
      },
    }));
  } catch (error) {
    if (options.out) rmSync(options.out, { force: true });
    if (!controller.signal.aborted) throw error;
    ctx.warn(`Export stopped${options.out ? `: ${options.out} removed` : ''}; nothing was recorded as exported.`);
    return EXIT.attention;
  } finally {
    ctx.io.signal.removeEventListener('abort', stop);
  }
  // After the snapshot: the export records itself, with its format, whether it was masked and how many entries.
  store.audit.append({
    actor: 'user',
    action: 'log.exported',
    details: { format, masked: !options.unmask, rowCount: count, ...(filter ? { outcome: 'filtered' } : {}) },
  });
  if (options.out) {
    const filtered = filter !== undefined;
    if (ctx.options.json) ctx.json({ file: options.out, format, masked: !options.unmask, count, filtered });
    else
      ctx.line(
        `Exported ${count} ${filtered ? 'matching ' : ''}audit entries to ${options.out}${options.unmask ? '' : ' (clinic order ids masked)'}.`,
      );
  }
  return EXIT.ok;
}

/**
 * The whole chain checked with this program's audit key and against the head it recorded outside the database, a
 * page at a time: progress on stderr about once a second (not with --json), and SIGINT/SIGTERM stops it (exit 1:
 * the log was not checked to its end).
 */
export async function logVerify(ctx: CliContext): Promise<number> {
  let lastLine = -Infinity;
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  ctx.io.signal.addEventListener('abort', stop, { once: true });
  if (ctx.io.signal.aborted) stop();
  let checked = 0;
  let report;
  try {
    report = await ctx.services.verifyAuditLogStreaming({
      signal: controller.signal,
      onProgress: (done, total) => {
        checked = done;
        const now = Date.now();
        if (ctx.options.json || now - lastLine < PROGRESS_LINE_MS) return;
        lastLine = now;
        ctx.warn(
          `Checking the audit log: ${done} of ${total} entries (${Math.floor((done / Math.max(total, 1)) * 100)}%)`,
        );
      },
    });
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    if (ctx.options.json) ctx.json({ ok: false, cancelled: true, checked });
    else ctx.line(`Audit log check stopped after ${checked} entries: nothing was wrong up to there.`);
    return EXIT.attention;
  } finally {
    ctx.io.signal.removeEventListener('abort', stop);
  }
  if (ctx.options.json) ctx.json(report);
  else if (report.ok) ctx.line(`Audit log OK: ${report.count} entries, every link intact.`);
  else ctx.line(`Audit log BROKEN at entry ${report.brokenAt}: ${report.reason}`);
  return report.ok ? EXIT.ok : EXIT.attention;
}
