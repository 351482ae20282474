import { createWriteStream, fchmodSync } from 'node:fs';
import { Writable } from 'node:stream';
import { exportAuditLog } from '../../core/audit/export-log.js';
import { PRIVATE_FILE_MODE } from '../../core/platform/private-files.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, UsageError } from '../cli-errors.js';

/** Writes through to stdout without ending it when the export ends (the process still owns stdout). */
function keepOpen(target: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      if (target.write(chunk)) done();
      else target.once('drain', () => done());
    },
  });
}

/** A new or existing file, private before the first byte reaches it (the mode option covers new files only). */
function privateFileStream(path: string) {
  return createWriteStream(path, { mode: PRIVATE_FILE_MODE }).once('open', (fd: number) =>
    fchmodSync(fd, PRIVATE_FILE_MODE),
  );
}

export async function logExport(
  ctx: CliContext,
  options: { format: string; unmask: boolean; out?: string },
): Promise<number> {
  if (options.format !== 'csv' && options.format !== 'jsonl') throw new UsageError('--format must be csv or jsonl');
  const format = options.format;
  const { store } = ctx.services;
  // The export holds patient-linked identifiers (masked or not): readable by its owner only.
  const out = options.out ? privateFileStream(options.out) : keepOpen(ctx.io.stdout);
  const { count } = await exportAuditLog(store, out, { format, unmask: options.unmask });
  // After the snapshot: the export records itself, with its format, whether it was masked and how many entries.
  store.audit.append({
    actor: 'user',
    action: 'log.exported',
    details: { format, masked: !options.unmask, rowCount: count },
  });
  if (options.out) {
    if (ctx.options.json) ctx.json({ file: options.out, format, masked: !options.unmask, count });
    else
      ctx.line(
        `Exported ${count} audit entries to ${options.out}${options.unmask ? '' : ' (clinic order ids masked)'}.`,
      );
  }
  return EXIT.ok;
}

/** The chain checked with this program's audit key and against the head it recorded outside the database. */
export function logVerify(ctx: CliContext): number {
  const report = ctx.services.verifyAuditLog();
  if (ctx.options.json) ctx.json(report);
  else if (report.ok) ctx.line(`Audit log OK: ${report.count} entries, every link intact.`);
  else ctx.line(`Audit log BROKEN at entry ${report.brokenAt}: ${report.reason}`);
  return report.ok ? EXIT.ok : EXIT.attention;
}
