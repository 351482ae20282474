import type { ContractErrorInfo } from '../../../shared/errors.js';
import { ContractError } from '../../../shared/errors.js';
import {
  POLICY_VIOLATION,
  serverMessageSchema,
  type CallResult,
  type ContractTransport,
} from '../../../shared/transport-protocol.js';

function closeReason(code: number): ContractErrorInfo {
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

/**
 * The browser-mode transport: one WebSocket to the bridge, opened with the launch secret. When it drops,
 * waiting calls fail as `disconnected` and the next call opens a new socket; event listeners carry over.
 */
export class BridgeSocket implements ContractTransport {
  readonly #url: string;
  readonly #secret: string;
  #socket: Promise<WebSocket> | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, (result: CallResult) => void>();
  readonly #listeners = new Map<string, Set<(payload: unknown) => void>>();

  constructor(url: string, secret: string) {
    this.#url = url;
    this.#secret = secret;
  }

  /** Opens the socket (once) and resolves when the bridge has accepted the secret. */
  connect(): Promise<WebSocket> {
    this.#socket ??= this.#open();
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
      let ready = false;
      socket.addEventListener('open', () => socket.send(JSON.stringify({ secret: this.#secret })));
      socket.addEventListener('message', (message) => {
        const parsed = parse(message.data);
        if (!parsed) return;
        if ('ready' in parsed) {
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
        const reason = closeReason(event.code);
        for (const settle of this.#pending.values()) settle({ ok: false, error: reason });
        this.#pending.clear();
        if (!ready) reject(new ContractError(reason));
      });
    });
  }
}
