import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import type { CallHandlers, CallOutput } from '../../../shared/contract.js';
import type { LogFilter } from '../../../shared/log-contract.js';
import type { AppServices } from '../app-services.js';
import { toAuditView } from '../views.js';
import { exportAuditLog } from './export-log.js';
import { chooseExportTarget, openExportStream, type ExportDeps } from '../export-target.js';
import { clearExportDownloads, type ExportFormat } from '../platform/export-files.js';
import { LogOperations, wasCancelled } from './log-operations.js';

type LogCallName = 'log.list' | 'log.verify' | 'log.export' | 'log.cancel';

export interface LogHandlerDeps extends ExportDeps {
  now?: () => Date;
}

/** `rx-batch-log-2025-03-03.csv`, from the local date. */
export function exportFileName(format: ExportFormat, now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  return `rx-batch-log-${day}.${format}`;
}

/** The filter without its unset keys; undefined when nothing is set (the whole log). */
function activeFilter(filter: LogFilter | undefined): LogFilter | undefined {
  if (!filter) return undefined;
  const set = Object.entries(filter).filter(([, value]) => value !== undefined);
  return set.length > 0 ? Object.fromEntries(set) : undefined;
}

/**
 * The submission log's calls of the contract: search, verify (keyed chain and recorded head), export, cancel.
 * An export is streamed to a file, never built as one text: in the desktop app where the admin chose in the native
 * save dialog (the page never names a path), elsewhere into a private download file that browser mode's bridge
 * streams to the page once (main/bridge/export-downloads.ts).
 */
export function buildLogHandlers(services: AppServices, deps: LogHandlerDeps): Pick<CallHandlers, LogCallName> {
  const { store } = services;
  const operations = new LogOperations(services.events);
  const now = deps.now ?? (() => new Date());
  // What an earlier run left undownloaded goes now: an export is patient-linked data.
  if (!deps.desktop) clearExportDownloads(deps.dataDir);

  return {
    'log.list': ({ beforeSeq, limit, ...filter }) => {
      const pageSize = limit ?? 100;
      const { entries, resumeBeforeSeq } = store.audit.searchPage({
        ...activeFilter(filter),
        ...(beforeSeq !== undefined ? { beforeSeq } : {}),
        limit: pageSize,
      });
      const full = entries.length === pageSize;
      return Promise.resolve({
        entries: entries.map(toAuditView),
        nextBeforeSeq: full ? entries[entries.length - 1]!.seq : resumeBeforeSeq,
        partial: !full && resumeBeforeSeq !== null,
      });
    },
    // The screen's check is incremental (what was appended since the last whole check) unless it asks for `full`,
    // which walks the whole chain a page at a time with progress, and stops on `log.cancel`.
    'log.verify': async ({ full }): Promise<CallOutput<'log.verify'>> => {
      if (full !== true) return services.verifyAuditLog({ incremental: true });
      const total = store.audit.lastSeq();
      let checked = 0;
      try {
        return await operations.run('verify', total, ({ signal, progress }) =>
          services.verifyAuditLogStreaming({
            signal,
            onProgress: (done) => {
              checked = done;
              progress(done);
            },
          }),
        );
      } catch (error) {
        if (wasCancelled(error)) return { ok: false, cancelled: true, checked, total };
        throw error;
      }
    },
    'log.export': async ({ format, unmask, filter: requested }): Promise<CallOutput<'log.export'>> => {
      const filter = activeFilter(requested);
      const masked = unmask !== true;
      const suggestedName = exportFileName(format, now());
      operations.refuseIfRunning('export');
      // Filters that match nothing export nothing: no dialog, no file of column names only, no audit entry.
      if (filter && store.audit.filteredPage(filter, 0, 1).length === 0) return { outcome: 'empty' };
      const target = await chooseExportTarget(deps, suggestedName, format);
      if (target === null) return { outcome: 'cancelled' };
      // Entries up to now; a filtered export's count is not known before it ends.
      const total = filter ? null : store.audit.lastSeq();
      let opened = false;
      let count: number;
      try {
        ({ count } = await operations.run('export', total, async ({ signal, progress }) => {
          const out = await openExportStream(target);
          opened = true;
          return exportAuditLog(store, out, {
            format,
            unmask: !masked,
            ...(filter ? { filter } : {}),
            signal,
            onProgress: progress,
          });
        }));
      } catch (error) {
        // Nothing half-written is left behind (a file chosen in the dialog was already emptied by the export).
        if (opened) rmSync(target.path, { force: true });
        if (opened && wasCancelled(error)) return { outcome: 'cancelled' };
        throw error;
      }
      // After the snapshot: the export records itself, with whether identifiers were shown and how many entries.
      store.audit.append({
        actor: 'user',
        action: 'log.exported',
        details: { format, masked, rowCount: count, ...(filter ? { outcome: 'filtered' } : {}) },
      });
      const exported = { format, masked, count, fileName: basename(target.path), filtered: filter !== undefined };
      return target.downloadId !== undefined
        ? { outcome: 'download', ...exported, fileName: suggestedName, downloadId: target.downloadId }
        : { outcome: 'saved', ...exported };
    },
    'log.cancel': ({ operation }) => Promise.resolve({ running: operations.cancel(operation) }),
  };
}
