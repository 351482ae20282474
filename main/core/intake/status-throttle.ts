/**
 * Status events of a running intake while messages arrive: at most one per `everyMs`, sent at the end of the
 * interval so it carries the last change (the app's Intake screen and `serve --ui` both show these).
 */
export class StatusThrottle {
  readonly #everyMs: number;
  readonly #send: () => void;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(everyMs: number, send: () => void) {
    this.#everyMs = everyMs;
    this.#send = send;
  }

  /** Something changed: an event goes out within `everyMs`, unless one is already set. */
  changed(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#stopped) this.#send();
    }, this.#everyMs);
    this.#timer.unref();
  }

  /** No event after this one. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
