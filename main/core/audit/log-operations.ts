import { ContractError } from '../../../shared/errors.js';
import type { LogOperation } from '../../../shared/log-contract.js';
import type { CoreEvents } from '../platform/events.js';

const NAMES: Record<LogOperation, string> = { export: 'An export of the log', verify: 'A full check of the log' };

/** Progress events at most this often (and always the first and the last): a screen needs no more. */
const PROGRESS_EVERY_MS = 200;

export interface OperationControl {
  signal: AbortSignal;
  /** Entries done so far; sent as `log.progress` now and then. */
  progress: (done: number) => void;
}

/**
 * The long log operations (an export, a whole-chain verify): one of each at a time, each with `log.progress`
 * events and stopped by `log.cancel` through its AbortSignal.
 */
export class LogOperations {
  readonly #running = new Map<LogOperation, AbortController>();
  readonly #events: CoreEvents;
  readonly #now: () => number;

  constructor(events: CoreEvents, now: () => number = () => Date.now()) {
    this.#events = events;
    this.#now = now;
  }

  /** Runs `work`; refuses while the same kind of operation runs. `total`: entries to do, when known. */
  async run<T>(
    operation: LogOperation,
    total: number | null,
    work: (control: OperationControl) => Promise<T>,
  ): Promise<T> {
    this.refuseIfRunning(operation);
    const controller = new AbortController();
    this.#running.set(operation, controller);
    let done = 0;
    let sentAt = -Infinity;
    const send = (finished: boolean) => {
      sentAt = this.#now();
      this.#events.emit('log.progress', { operation, done, total, finished });
    };
    send(false);
    try {
      return await work({
        signal: controller.signal,
        progress: (count) => {
          done = count;
          if (this.#now() - sentAt >= PROGRESS_EVERY_MS) send(false);
        },
      });
    } finally {
      this.#running.delete(operation);
      send(true);
    }
  }

  /** Throws the contract's `failed` when an operation of this kind runs. */
  refuseIfRunning(operation: LogOperation): void {
    if (!this.#running.has(operation)) return;
    throw new ContractError({
      code: 'failed',
      message: `${NAMES[operation]} is already running: wait for it to finish, or cancel it first.`,
    });
  }

  /** Stops the running operation of this kind; false when none runs. */
  cancel(operation: LogOperation): boolean {
    const controller = this.#running.get(operation);
    if (!controller) return false;
    controller.abort(new OperationCancelled(operation));
    return true;
  }

  /** Stops everything (the core is closing). */
  cancelAll(): void {
    for (const operation of this.#running.keys()) this.cancel(operation);
  }
}

/** The reason an operation's signal carries when `log.cancel` stopped it. */
export class OperationCancelled extends Error {
  constructor(readonly operation: LogOperation) {
    super(`${operation} cancelled`);
    this.name = 'OperationCancelled';
  }
}

/** Whether a failure is a cancel (a stream reports it as its own AbortError, with the reason as its cause). */
export function wasCancelled(error: unknown): boolean {
  return (
    error instanceof OperationCancelled ||
    (error instanceof Error && error.name === 'AbortError' && error.cause instanceof OperationCancelled)
  );
}
