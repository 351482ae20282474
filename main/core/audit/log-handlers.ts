import { Writable } from 'node:stream';
import type { CallHandlers } from '../../../shared/contract.js';
import type { AppServices } from '../app-services.js';
import { toAuditView } from '../views.js';
import { exportAuditLog } from './export-log.js';

type LogCallName = 'log.list' | 'log.verify' | 'log.export';

/** Collects an export into one string (the contract carries text; Electron can later stream to a file). */
class TextSink extends Writable {
  readonly chunks: string[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    done();
  }
}

/** The submission log's calls of the contract: search, verify (keyed chain and recorded head), export. */
export function buildLogHandlers(services: AppServices): Pick<CallHandlers, LogCallName> {
  const { store } = services;
  return {
    'log.list': ({ environmentId, orderId, clinicOrderId, action, search, beforeSeq, limit }) => {
      const pageSize = limit ?? 100;
      const entries = store.audit.search({
        ...(environmentId !== undefined ? { environmentId } : {}),
        ...(orderId !== undefined ? { orderId } : {}),
        ...(clinicOrderId !== undefined ? { clinicOrderId } : {}),
        ...(action !== undefined ? { action } : {}),
        ...(search !== undefined ? { search } : {}),
        ...(beforeSeq !== undefined ? { beforeSeq } : {}),
        limit: pageSize,
      });
      return Promise.resolve({
        entries: entries.map(toAuditView),
        nextBeforeSeq: entries.length === pageSize ? entries[entries.length - 1]!.seq : null,
      });
    },
    // The screen's check is incremental (what was appended since the last whole check) unless it asks for `full`.
    'log.verify': ({ full }) => Promise.resolve(services.verifyAuditLog({ incremental: full !== true })),
    'log.export': async ({ format, unmask }) => {
      const sink = new TextSink();
      const { count } = await exportAuditLog(store, sink, { format, unmask: unmask ?? false });
      // After the snapshot: the export records itself, with whether identifiers were shown and how many entries.
      store.audit.append({
        actor: 'user',
        action: 'log.exported',
        details: { format, masked: !unmask, rowCount: count },
      });
      return { format, masked: !unmask, count, text: sink.chunks.join('') };
    },
  };
}
