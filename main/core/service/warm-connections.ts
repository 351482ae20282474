import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/**
 * Connections opened a little ahead of the requests that will use them, one request each.
 *
 * Every request goes over a connection of its own (http-exchange.ts: that is how "refused before anything was
 * sent" is told from "lost after"), and opening one costs a turn of the event loop: the request is written only when
 * the loop next polls. After the loop was busy (a commit of the outbox, a burst of answers), every new request
 * waited for that turn while the service had nothing to do. A warm connection is open already, so its request is
 * written at once. It is still fresh: opened for one request, never used for a second, and closed unused after
 * `maxAgeMs` (far below any server's idle timeout), so an idle client holds none. Only as many are kept as requests
 * came in the last `maxAgeMs`, less one: a steady stream keeps `size`, a request every few seconds keeps none (each
 * spare would only age out unused). A request that takes one counts as possibly sent from the start (its connection
 * is open), so a failure on it is in doubt, never "not sent".
 */
export class WarmConnections {
  readonly #size: number;
  readonly #maxAgeMs: number;
  readonly #spares = new Map<string, Spare[]>();
  /** When the latest requests asked for a connection (oldest first, none older than maxAgeMs). */
  readonly #recent: number[] = [];
  #handedOut = 0;

  /** `size`: connections kept ahead per origin while requests keep coming. */
  constructor(size: number, maxAgeMs = 1_000) {
    this.#size = Math.max(0, Math.floor(size));
    this.#maxAgeMs = maxAgeMs;
  }

  /**
   * An open connection to `url`'s origin for one request, if one is ready (else the caller connects as usual), and
   * the origin's spares topped up for the requests after it.
   */
  take(url: URL): Socket | undefined {
    if (this.#size === 0) return undefined;
    const now = performance.now();
    // Only the last size + 1 matter.
    this.#recent.push(now);
    if (this.#recent.length > this.#size + 1) this.#recent.shift();
    while (this.#recent[0]! <= now - this.#maxAgeMs) this.#recent.shift();
    const wanted = Math.min(this.#size, this.#recent.length - 1);
    const key = `${url.protocol}//${url.host}`;
    let spares = this.#spares.get(key);
    if (!spares) this.#spares.set(key, (spares = []));
    let taken: Spare | undefined;
    for (let i = 0; i < spares.length;) {
      const spare = spares[i]!;
      if (spare.socket.destroyed || (spare.ready && spare.socket.readyState !== 'open')) {
        // Failed, aged out, or closed by the server (half-closed: 'writeOnly'): never handed out.
        spares.splice(i, 1);
        spare.socket.destroy();
      } else if (spare.ready && !taken) {
        spares.splice(i, 1);
        taken = spare;
      } else {
        i += 1;
      }
    }
    while (spares.length < wanted) spares.push(this.#open(url));
    if (!taken) return undefined;
    clearTimeout(taken.expiry);
    // Its error listener stays: the request's own comes a tick later, and an error is never left unheard.
    taken.socket.ref();
    this.#handedOut += 1;
    return taken.socket;
  }

  /** Connections handed out so far (requests that did not wait to connect). */
  get handedOut(): number {
    return this.#handedOut;
  }

  /** Closes every spare (nothing in flight uses them). */
  close(): void {
    for (const spares of this.#spares.values()) for (const spare of spares) spare.socket.destroy();
    this.#spares.clear();
  }

  #open(url: URL): Spare {
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket =
      url.protocol === 'https:'
        ? tlsConnect({ host, port, ALPNProtocols: ['http/1.1'], ...(isIP(host) ? {} : { servername: host }) })
        : netConnect({ host, port });
    const spare: Spare = { socket, ready: false, expiry: setTimeout(() => socket.destroy(), this.#maxAgeMs) };
    spare.expiry.unref();
    // Never what keeps a process alive: a spare waits for a request that may not come.
    socket.unref();
    socket.on('error', () => socket.destroy());
    socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      spare.ready = true;
    });
    return spare;
  }
}

interface Spare {
  socket: Socket;
  /** Connected (and for https, the TLS handshake done and the certificate verified). */
  ready: boolean;
  expiry: NodeJS.Timeout;
}
