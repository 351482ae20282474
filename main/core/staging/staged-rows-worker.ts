import { parentPort, workerData } from 'node:worker_threads';
import { StagedRowInserter, openImportConnection } from '../store/staged-batch-writer.js';
import type { FromRowWorker, RowWorkerData, ToRowWorker } from './worker-row-sink.js';

/**
 * The worker thread that writes an import's rows (started by worker-row-sink.ts): one connection of its own to the
 * store file, one transaction per chunk, an answer per chunk. SQLite runs here while the main thread parses the
 * next part of the file, so the two cores share the import.
 */

const port = parentPort;
if (!port) throw new Error('staged-rows-worker.ts runs as a worker thread');
const { file, batchId } = workerData as RowWorkerData;
const db = openImportConnection(file);
const inserter = new StagedRowInserter(db, batchId);
const answer = (message: FromRowWorker) => port.postMessage(message);
answer({ type: 'ready' });

/**
 * Checkpoints taken while the worker waits for the next chunk, once this much is written since the last: the
 * checkpoint at the end (which the import waits for) then has only the last few chunks to copy instead of up to
 * 16 MB (about 100 ms for a 50,000-order CSV).
 */
const IDLE_CHECKPOINT_CHARS = 2_000_000;
let idleCheckpoint: NodeJS.Immediate | undefined;
// An immediate runs after every message already queued on the port: only when the worker has caught up.
const checkpointWhileIdle = () => {
  idleCheckpoint = undefined;
  try {
    if (db.open) inserter.checkpoint();
  } catch {
    // Only an early copy into the file: the one at the end will do it, or report why it cannot.
  }
};

port.on('message', (message: ToRowWorker) => {
  if (message.type === 'rows') {
    try {
      inserter.insert(message.chunk);
      answer({ type: 'written' });
      if (!idleCheckpoint && inserter.unCheckpointed >= IDLE_CHECKPOINT_CHARS) {
        idleCheckpoint = setImmediate(checkpointWhileIdle);
      }
    } catch (error) {
      answer({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
    return;
  }
  if (idleCheckpoint) clearImmediate(idleCheckpoint);
  // The end: what is written goes into the database file here, not in the commit on the main thread.
  try {
    inserter.checkpoint();
  } finally {
    if (db.open) db.close();
  }
  answer({ type: 'ended' });
  port.close();
});
