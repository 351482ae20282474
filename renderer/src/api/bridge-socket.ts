import type { ContractErrorInfo } from '../../../shared/errors.js';
import type { ConnectionState } from './connection-state.js';
import { handshakeProof, newNonce, proofHolds } from '../../../shared/bridge-handshake.js';
import { ContractError } from '../../../shared/errors.js';
import {
  POLICY_VIOLATION,
  serverMessageSchema,
  type CallResult,
  type ContractTransport,
} from '../../../shared/transport-protocol.js';

/** Closed by the page itself: what answered did not prove it holds the launch secret. */
const NOT_RX_BATCH = 4001;

function closeReason(code: number): ContractErrorInfo {
  if (code === NOT_RX_BATCH) {
    return {
      code: 'forbidden',
      message:
        'Something other than Rx Batch answered at its address, so nothing was sent to it. Start Rx Batch again and open the address it prints.',
    };
  }
  if (code === POLICY_VIOLATION) {
    return {
      code: 'forbidden',
      message: 'Rx Batch refused this page. Open the address Rx Batch printed when it started.',
    };
  }
  return { code: 'disconnected', message: 'Lost the connection to Rx Batch. Check that it is still running.' };
}

function parse(data: unknown) {
  if (typeof data !== 'string') return undefined;
  try {
    const parsed = serverMessageSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Waits before each new try after the link dropped: soon at first, then every 10 s. */
const RECONNECT_DELAYS_MS = [500, 1_000, 2_000, 5_000, 10_000];

/**
 * The browser-mode transport: one WebSocket to the bridge, on which each side proves it holds the launch secret
 * (bridge-handshake.ts) before any call is sent: a program that took the port after the bridge stopped gets
 * neither the secret nor a call, and the page stops trying. When it drops,
 * waiting calls fail as `disconnected`, `onConnection` hears it at once (once per drop), and the socket is opened
 * again by itself (events flow only through an open socket), or by the next call; event listeners carry over.
 */
export class BridgeSocket implements ContractTransport {
  readonly #url: string;
  readonly #secret: string;
  readonly #onConnection: (state: ConnectionState) => void;
  #socket: Promise<WebSocket> | undefined;
  #lost = false;
  #tries = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #nextId = 1;
  readonly #pending = new Map<number, (result: CallResult) => void>();
  readonly #listeners = new Map<string, Set<(payload: unknown) => void>>();

  constructor(url: string, secret: string, onConnection: (state: ConnectionState) => void = () => {}) {
    this.#url = url;
    this.#secret = secret;
    this.#onConnection = onConnection;
  }

  /** Stops reconnecting and closes the socket (tests; a page simply goes away). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    void this.#socket?.then(
      (socket) => socket.close(),
      () => {},
    );
  }

  /** Opens the socket (once) and resolves when the bridge has accepted the secret. */
  connect(): Promise<WebSocket> {
    if (!this.#socket) {
      const opening = this.#open();
      this.#socket = opening;
      opening.then(
        () => this.#connected(),
        () => {},
      );
    }
    return this.#socket;
  }

  async call(name: string, input: unknown): Promise<CallResult> {
    let socket: WebSocket;
    try {
      socket = await this.connect();
    } catch (error) {
      return { ok: false, error: error instanceof ContractError ? error.toInfo() : closeReason(1006) };
    }
    // The socket may have dropped since it was opened; its close already failed every waiting call.
    if (socket.readyState !== WebSocket.OPEN) return { ok: false, error: closeReason(1006) };
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      socket.send(JSON.stringify({ id, call: name, input }));
    });
  }

  on(event: string, listener: (payload: unknown) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  #open(): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.#url);
      const hello = newNonce();
      let ready = false;
      // Whether the other end proved it holds the secret: until then nothing but the handshake is sent or believed.
      let proven = false;
      let impostor = false;
      const notRxBatch = () => {
        impostor = true;
        socket.close(NOT_RX_BATCH);
      };
      socket.addEventListener('open', () => socket.send(JSON.stringify({ hello })));
      socket.addEventListener('message', (message) => {
        const parsed = parse(message.data);
        if (!parsed || impostor) return;
        if ('challenge' in parsed) {
          if (proven) return notRxBatch();
          void (async () => {
            if (!(await proofHolds(this.#secret, 'bridge', hello, parsed.proof))) return notRxBatch();
            proven = true;
            const proof = await handshakeProof(this.#secret, 'page', parsed.challenge);
            socket.send(JSON.stringify({ proof }));
          })();
        } else if (!proven) {
          notRxBatch();
        } else if ('ready' in parsed) {
          ready = true;
          resolve(socket);
        } else if ('event' in parsed) {
          for (const listener of this.#listeners.get(parsed.event) ?? []) listener(parsed.payload);
        } else if (parsed.id !== null) {
          const settle = this.#pending.get(parsed.id);
          this.#pending.delete(parsed.id);
          settle?.(parsed.ok ? { ok: true, value: parsed.value } : { ok: false, error: parsed.error });
        }
      });
      socket.addEventListener('close', (event) => {
        this.#socket = undefined;
        const reason = closeReason(impostor ? NOT_RX_BATCH : event.code);
        for (const settle of this.#pending.values()) settle({ ok: false, error: reason });
        this.#pending.clear();
        if (!ready) reject(new ContractError(reason));
        // Only a link that was up is lost; a first connect's failure is its caller's to report.
        const refused = event.code === POLICY_VIOLATION || impostor;
        if ((ready || this.#lost) && !this.#closed) this.#dropped(reason, refused);
      });
    });
  }

  #connected(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#tries = 0;
    if (!this.#lost) return;
    this.#lost = false;
    this.#onConnection({ state: 'connected' });
  }

  /** Said at once; tried again by itself unless the bridge refused the page (a new launch: a new address). */
  #dropped(reason: ContractErrorInfo, refused: boolean): void {
    this.#lost = true;
    if (refused) {
      clearTimeout(this.#retryTimer);
      this.#onConnection({ state: 'lost', message: reason.message, nextTryAt: null, refused: true });
      return;
    }
    if (this.#retryTimer !== undefined) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.#tries, RECONNECT_DELAYS_MS.length - 1)]!;
    this.#tries += 1;
    this.#onConnection({ state: 'lost', message: reason.message, nextTryAt: Date.now() + delay, refused: false });
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#closed) this.connect().catch(() => {});
    }, delay);
  }
}
