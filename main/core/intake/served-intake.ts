import { StatusThrottle } from './status-throttle.js';
import type { IntakeStatus } from '../../../shared/intake-contract.js';
import type { IntakeRuleSetView } from '../../../shared/intake-rules.js';
import type { Store } from '../store/store.js';
import { ChannelActivity, seriesEnd } from './channel-activity.js';
import type { FolderWatcher, WatchedFileResult } from './folder-watcher.js';
import { channelView, noteFile, noteMessage, noteRefusal, type IntakeChannel } from './intake-channels.js';
import type { IntakeResult } from './intake-service.js';
import type { ListenerRefusal } from './listener-refusal.js';
import type { MllpListener } from './mllp-listener.js';

/**
 * What `rx-batch serve --ui` shows its page on the Intake screen: serve's own listener and folders, counted as the
 * app's intake counts its own (intake-channels.ts), with serve's rules and PID. Serve runs them; the page only
 * reads this (`intake.status`), and start and stop are refused there (intake-handlers.ts `servedIntakeHandlers`).
 */

export interface ServedIntakeOptions {
  store: Store;
  environmentId: string;
  rules: IntakeRuleSetView;
  /** The last intake message row before serve started: its listener's batches are the rows after it. */
  afterMessageId: number;
  pid: number;
  /** The status changed: at most once per `changedEveryMs` (default 1 s). */
  onChanged(status: IntakeStatus): void;
  changedEveryMs?: number;
  now?: () => Date;
}

export class ServedIntake {
  readonly #options: ServedIntakeOptions;
  readonly #now: () => Date;
  readonly #startedAt: string;
  readonly #channels: IntakeChannel[] = [];
  #stopped = false;
  readonly #status: StatusThrottle;

  constructor(options: ServedIntakeOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#startedAt = this.#now().toISOString();
    this.#status = new StatusThrottle(options.changedEveryMs ?? 1000, () => options.onChanged(this.status()));
  }

  /**
   * A listener serve starts: what it answers and refuses is counted through the hooks returned; `bound` once it
   * listens, with the address it got.
   */
  listener(listener: MllpListener, address: string) {
    const channel = this.#add({ kind: 'mllp', address, state: 'starting', listener });
    return {
      bound: (at: string) => {
        channel.address = at;
        channel.state = 'listening';
      },
      answered: (raw: Buffer, peer: string, result: IntakeResult) => {
        noteMessage(channel.activity, raw, peer, result);
        this.#status.changed();
      },
      refused: (refusal: ListenerRefusal) => {
        noteRefusal(channel.activity, refusal);
        this.#status.changed();
      },
    };
  }

  /** A folder serve watches: returns what to call for each file it handled. */
  watching(folder: string, watcher?: FolderWatcher): (file: WatchedFileResult) => void {
    const channel = this.#add({ kind: 'folder', address: folder, state: 'watching', ...(watcher ? { watcher } : {}) });
    return (file) => {
      noteFile(channel.activity, this.#options.store, file);
      this.#status.changed();
    };
  }

  /** Serve is stopping: its channels show as stopped, and no more events are sent. */
  stopped(): void {
    this.#stopped = true;
    this.#status.stop();
    for (const channel of this.#channels) channel.state = 'stopped';
  }

  status(): IntakeStatus {
    const { store, environmentId, afterMessageId, rules, pid } = this.#options;
    const run = { environmentId, afterMessageId };
    return {
      running: !this.#stopped,
      environmentId,
      onArrival: rules.onArrival,
      rules,
      startedAt: this.#startedAt,
      seriesEndsAt: seriesEnd(this.#now()),
      channels: this.#channels.map((channel) => channelView(store, run, channel)),
      // Serve's folders are on its command line: none can be added from the page.
      allowedFolders: [],
      serve: { pid },
    };
  }

  #add(channel: Omit<IntakeChannel, 'activity'>): IntakeChannel {
    const added: IntakeChannel = { ...channel, activity: new ChannelActivity(this.#now) };
    this.#channels.push(added);
    return added;
  }
}
