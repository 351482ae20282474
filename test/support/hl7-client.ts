import { connect, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Client, InboundResponse, MLLPCodec, Message } from 'node-hl7-client';

/**
 * The tests' independent MLLP client: every use of node-hl7-client in the intake tests is here (one file to adapt
 * when the library moves from 3 to 4). Well-formed messages go through the library's own Client (its framing, its
 * connection handling, its ACK parsing); malformed frames, which no library sends, are written on a raw socket
 * and the answers read with the library's MLLPCodec.
 */

/** An ACK as the library parsed it, read field by field. */
export interface ParsedAck {
  text: string;
  /** `MSH.9.1`, `MSA.1`, `ERR.3.1`…: read through the library's Message. */
  get(path: string): string;
  /**
   * Every ERR segment's fields as the library reads them (escapes decoded): ERR-3.1 (HL7 code), ERR-8 (text) and
   * ERR-2 (location, its components joined by `^`).
   */
  errors: Array<{ code: string; text: string; location: string }>;
}

export function parseAck(text: string): ParsedAck {
  const message = new InboundResponse(text).getMessage();
  const errors: ParsedAck['errors'] = [];
  const segments = text.split('\r').filter((s) => s.startsWith('ERR'));
  for (let i = 0; i < segments.length; i += 1) {
    // Repeated segments: the library's list, 0-based; within one, a path from its name (4.0) or a field number.
    const segment = message.get('ERR').get(i);
    const location = [1, 2, 3, 4, 5, 6].map((n) => segment.get(`ERR.2.${n}`).toString());
    while (location.at(-1) === '') location.pop();
    errors.push({
      code: segment.get('ERR.3.1').toString(),
      text: segment.get(8).toString(),
      location: location.join('^'),
    });
  }
  return { text, get: (path) => message.get(path).toString(), errors };
}

/** Sends each message on one library connection, waiting for each ACK; resolves with the ACKs in order. */
export async function sendWithLibrary(
  port: number,
  messages: readonly string[],
  options: { host?: string; tls?: ConnectionOptions } = {},
): Promise<ParsedAck[]> {
  const client = new Client({
    host: options.host ?? '127.0.0.1',
    // node-hl7-client 4 asks which HL7 version a client and listener speak: the tests' messages are v2.5.
    version: '2.5',
    connectionTimeout: 5000,
    maxConnectionAttempts: 3,
    ...(options.tls ? { tls: options.tls } : {}),
  });
  const acks: ParsedAck[] = [];
  let wake: (() => void) | undefined;
  const connection = client.createConnection({ port, version: '2.5', waitAck: true, autoConnect: true }, (response) => {
    acks.push(parseAck(response.getMessage().toString()));
    wake?.();
    return Promise.resolve();
  });
  try {
    await connection.connect().catch(() => undefined);
    for (const text of messages) {
      const before = acks.length;
      const answered = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no ACK within 10 s')), 10_000);
        wake = () => {
          if (acks.length > before) {
            clearTimeout(timer);
            resolve();
          }
        };
      });
      await connection.sendMessage(new Message({ text }));
      await answered;
    }
    return acks;
  } finally {
    await connection.close();
    client.closeAll();
  }
}

/** A raw MLLP socket: writes any bytes (malformed frames included) and collects ACK frames decoded by the library. */
export class RawMllpSocket {
  readonly #socket: Socket;
  readonly #codec = new MLLPCodec('utf8', '\r');
  readonly acks: ParsedAck[] = [];
  #waiters: Array<() => void> = [];
  closed = false;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (data: Buffer) => {
      // Two ACKs can come in one chunk, and the codec reads one frame per call: it is given one frame at a time.
      let start = 0;
      for (let i = 0; i + 1 < data.length; i += 1) {
        if (data[i] === 0x1c && data[i + 1] === 0x0d) {
          this.#receive(data.subarray(start, i + 2));
          start = i + 2;
        }
      }
      if (start < data.length) this.#receive(data.subarray(start));
    });
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.#waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
  }

  /** The codec keeps partial frames between calls; each complete one is an ACK. */
  #receive(bytes: Buffer): void {
    if (this.#codec.receiveData(bytes)) {
      const message = this.#codec.getLastMessage();
      if (message !== null) this.acks.push(parseAck(message));
      for (const w of this.#waiters.splice(0)) w();
    }
  }

  /** `localAddress`: the address to connect from (any of 127.0.0.0/8 on Linux: another peer on this computer). */
  static open(port: number, host = '127.0.0.1', localAddress?: string): Promise<RawMllpSocket> {
    return new Promise((resolve, reject) => {
      const options = { port, host, ...(localAddress ? { localAddress } : {}) };
      const socket = connect(options, () => resolve(new RawMllpSocket(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: Buffer | string): void {
    this.#socket.write(bytes);
  }

  /** Resolves once `count` ACKs have come (or the socket closed). */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ParsedAck[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.acks.length < count && !this.closed) {
      if (Date.now() > deadline) throw new Error(`only ${this.acks.length} of ${count} ACKs within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.acks;
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** `0x0B text 0x1C 0x0D`, for the raw socket. */
export function frame(text: string): Buffer {
  return Buffer.concat([Buffer.of(0x0b), Buffer.from(text, 'utf8'), Buffer.of(0x1c, 0x0d)]);
}
