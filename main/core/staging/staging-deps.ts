import type { CodeLists } from '../../../shared/environment.js';
import type { OpenRowSink } from '../store/staged-batch-writer.js';
import type { Store } from '../store/store.js';

/** What staging needs from the core: the store, each environment's code lists, and the clock. */
export interface StagingDeps {
  store: Store;
  codeListsFor(environmentId: string): CodeLists;
  now(): Date;
  /** Where an import's rows are written: a worker thread (the default), or this thread for `inProcessRowSink`. */
  openRowSink?: OpenRowSink;
}

/** A request staging cannot carry out (no such batch, a bad path, a route that does not suit the batch). */
export class StagingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StagingError';
  }
}
