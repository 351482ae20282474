import { readRegularFileSync } from '../platform/read-regular-file.js';
import { Socket, createServer as createTcpServer, isIP, type AddressInfo, type Server } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from '../platform/logger.js';
import { buildAck } from './hl7-ack.js';
import type { ListenerRefusal, PeerRefusalReason } from './listener-refusal.js';
import type { IntakeResult } from './intake-service.js';
import { MLLP_START, MllpFramer, mllpFrame, type FrameEvent } from './mllp-framer.js';

/**
 * An MLLP listener: HL7 v2 messages over TCP (or TLS), each framed `0x0B … 0x1C 0x0D`, each answered with its ACK
 * on the same connection. Many connections at once; on each, one message at a time (the next frame is read only
 * once the previous one is acknowledged, as MLLP senders expect). The message is handed to `handle`, which stores
 * it durably before resolving with the ACK; only then is the ACK written.
 *
 * Bound to 127.0.0.1 unless another host is given; a peer whose address is not in `allow` (when given) is
 * refused on connect with one log line. Frames larger than `maxMessageBytes` are refused (AR) and the connection
 * closed; a connection idle for `idleTimeoutMs` (the peer sends nothing and takes no ACK, and no message of its is
 * being stored) is closed. The next message is read only once the peer has taken the last ACK (docs/security.md,
 * finding 35). Log lines carry peers and counts, never message text.
 */

export interface MllpListenerOptions {
  host?: string;
  port?: number;
  /** Peer addresses allowed to connect (IPv4, IPv6, or IPv4-mapped); absent: any peer that can reach the host. */
  allow?: readonly string[];
  /**
   * TLS with this certificate and key (PEM files). With `clientCaPath`, mutual TLS: a peer must present a
   * certificate issued by that CA (PEM), or the handshake fails and nothing it sends is read. An address can be
   * borrowed; a key cannot.
   */
  tls?: { certPath: string; keyPath: string; clientCaPath?: string };
  /** Default 1 MiB. */
  maxMessageBytes?: number;
  /** Default 5 minutes. */
  idleTimeoutMs?: number;
  /** Connections open at once (default `MAX_MLLP_CONNECTIONS`); one more is closed unread, logged and audited. */
  maxConnections?: number;
  /** A refused peer's further refusals within this long are counted, then said once (default 60 s). */
  refusalIntervalMs?: number;
  handle(raw: Buffer, peer: string): Promise<IntakeResult>;
  /** Refusals that never reach `handle` (a peer not allowed, a frame too large or dropped), for the audit log. */
  onRefusal?(refusal: ListenerRefusal): void;
  logger?: Logger;
}

/** Why a peer's connection was refused on connect: the allow-list, HTTP or another protocol, a failed TLS handshake. */
const PEER_REFUSAL_LINES: Record<PeerRefusalReason, string> = {
  allow: 'intake: refused a connection from a peer not in the allow-list',
  http: 'intake: refused a connection that began as an HTTP request (a web page in a browser?)',
  notMllp: 'intake: refused a connection that did not begin with an MLLP start byte (TLS or another protocol?)',
  tls: 'intake: TLS handshake failed',
};

/**
 * A flood of connections the listener refuses (a scanner, a page in a loop, a client without the CA's certificate
 * retrying) was a log line and an audit entry each. The first from an address, per reason, is said as before; the
 * rest within the interval are counted and said in one line and one entry with the count (docs/security.md,
 * finding 44). Addresses past the cap share one count, so an attacker with many addresses cannot grow the map.
 */
const DEFAULT_REFUSAL_INTERVAL_MS = 60_000;
const MAX_REFUSING_ADDRESSES = 1024;

interface RefusalRun {
  reason: PeerRefusalReason;
  /** The address (or `other peers` past the cap), without a port: ports change with each connection. */
  address: string;
  counted: number;
  timer: NodeJS.Timeout;
}

export interface MllpListenerStats {
  connections: number;
  peers: string[];
  messages: number;
  refusedPeers: number;
  malformedFrames: number;
}

export const DEFAULT_MLLP_MESSAGE_BYTES = 1024 * 1024;
const DEFAULT_IDLE_MS = 5 * 60 * 1000;
/**
 * How long a frame whose last byte is 0x1C waits for its 0x0D before it is read as ended (a sender that ends frames
 * with 0x1C alone). A 0x0D that comes later is skipped as a stray byte between frames.
 */
const LONE_END_WAIT_MS = 250;

/**
 * Each connection may hold an unfinished frame of up to `maxMessageBytes` for as long as it sends within the idle
 * timeout: uncapped, any local user or allowed peer could open thousands and end the core out of memory
 * (docs/security.md, finding 36). 256 senders at once, at most 256 MiB of frames at the default size limit.
 */
export const MAX_MLLP_CONNECTIONS = 256;
/** What `serve --max-connections` and `--max-message-bytes` may raise the limits to, and their product at most. */
export const MLLP_LIMITS = { connections: 4096, messageBytes: 64 * 1024 * 1024, bufferedBytes: 4 * 1024 ** 3 };

/**
 * Any web page the admin visits can have the browser send bytes to this port, and the framer skips what precedes a
 * start byte: an HTTP request's line and headers were skipped and an MLLP frame in its body was staged
 * (docs/security.md, finding 18), and so was one carried in a TLS ClientHello's session ticket, which the page's own
 * server chose before its name was pointed here (finding 51). An MLLP sender's connection begins with a start byte,
 * or the odd stray line break before it; anything else is closed unread. Decided on the first bytes, before any of
 * them reach the framer; an HTTP request line is told apart only to say so.
 */
const HTTP_OPENING = /^[a-z][\w-]{2,15} (?:\/|\*|https?:)/i;
const OPENING_BYTES = 24;

export type Opening = 'mllp' | 'http' | 'other';

/** What a connection's first bytes begin: MLLP, an HTTP request, or anything else; undefined until they tell. */
export function openingOf(opening: Buffer): Opening | undefined {
  let at = 0;
  while (at < opening.length && at < OPENING_BYTES && (opening[at] === 0x0d || opening[at] === 0x0a)) at += 1;
  const first = opening[at];
  if (first === MLLP_START) return 'mllp';
  if (at >= OPENING_BYTES) return 'other';
  if (first === undefined) return undefined;
  if (!/[a-z]/i.test(String.fromCharCode(first))) return 'other';
  const ended = opening.includes(MLLP_START, at) || opening.includes(0x0a, at);
  if (!ended && opening.length - at < OPENING_BYTES) return undefined;
  return HTTP_OPENING.test(opening.subarray(at, at + OPENING_BYTES).toString('latin1')) ? 'http' : 'other';
}

/** A TLS file given by path: a regular file (a FIFO there would block the start), PEM text of at most 1 MB. */
const readPem = (path: string): Buffer => readRegularFileSync(path, 1024 * 1024, 'a PEM file');

export function normalisePeer(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** A connection's peer as logged and audited: `address` alone keys a run of refusals (ports change). */
interface Peer {
  address: string;
  /** `address:port`, or `unknown`: never empty nor `:`, so an entry always says who (or that nobody could tell). */
  label: string;
}

function peerOf(remote: { remoteAddress?: string | undefined; remotePort?: number | undefined } | undefined): Peer {
  const address = normalisePeer(remote?.remoteAddress) || 'unknown';
  const port = remote?.remotePort;
  return { address, label: address !== 'unknown' && port !== undefined ? `${address}:${port}` : address };
}

/**
 * The TCP socket a TLS server wrapped (Node's `_parent`, set since 0.11 and not public API): the key under which the
 * listener kept the peer it read when the connection arrived.
 */
function tcpSocketOf(socket: Socket): Socket | undefined {
  const parent = (socket as Socket & { _parent?: unknown })._parent;
  return parent instanceof Socket ? parent : undefined;
}

/** Resolves once what was written to `socket` has left for the peer, or the socket closed. */
function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

export class MllpListener {
  readonly #options: MllpListenerOptions;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #allow: Set<string> | undefined;
  /** A connection was refused for the cap and none has closed since. */
  #full = false;
  /** Per reason and address: the refusals counted since the one said. */
  readonly #refusalRuns = new Map<string, RefusalRun>();
  /**
   * Each TCP connection's peer, read as it arrived: a TLS socket whose handshake failed (a certificate refused, the
   * peer gone with ECONNRESET) no longer has its remote address when `tlsClientError` fires, and its refusal said
   * `peer: ":"`, so the admin could not tell who was refused (docs/security.md, finding 44).
   */
  readonly #arrived = new WeakMap<Socket, Peer>();
  /** TCP sockets closed for the allow-list before their TLS handshake. */
  readonly #refusedEarly = new WeakSet<Socket>();
  readonly stats: MllpListenerStats = { connections: 0, peers: [], messages: 0, refusedPeers: 0, malformedFrames: 0 };
  #address: AddressInfo | undefined;

  constructor(options: MllpListenerOptions) {
    this.#options = options;
    this.#allow = options.allow ? new Set(options.allow.map((a) => normalisePeer(a))) : undefined;
    if (options.tls) {
      const { certPath, keyPath, clientCaPath } = options.tls;
      const server = createTlsServer(
        {
          cert: readPem(certPath),
          key: readPem(keyPath),
          ...(clientCaPath ? { ca: readPem(clientCaPath), requestCert: true, rejectUnauthorized: true } : {}),
        },
        (socket) => this.#connection(socket),
      );
      // Before the TLS server wraps the socket, and before any handshake byte is read: a peer the allow-list leaves
      // out is closed here, or it held a slot for the handshake's two minutes sending nothing (finding 46).
      server.prependListener('connection', (socket: Socket) => {
        const peer = peerOf(socket);
        this.#arrived.set(socket, peer);
        if (this.#allow && !this.#allow.has(peer.address)) {
          this.#refusedEarly.add(socket);
          this.#refusePeer('allow', peer);
          socket.destroy();
        }
      });
      server.on('tlsClientError', (error: NodeJS.ErrnoException, socket: TLSSocket) => {
        // Closed above for the allow-list: refused once, not again as a failed handshake.
        const tcp = tcpSocketOf(socket);
        if (this.#refusedEarly.has(socket) || (tcp && this.#refusedEarly.has(tcp))) return;
        // A peer without a certificate the CA issued is refused like a peer not allowed: audited.
        this.#refusePeer('tls', this.#peer(socket), {
          audit: clientCaPath !== undefined,
          error: error.code ?? error.message,
        });
      });
      this.#server = server;
    } else {
      this.#server = createTcpServer((socket) => this.#connection(socket));
    }
    const maxConnections = options.maxConnections ?? MAX_MLLP_CONNECTIONS;
    this.#server.maxConnections = maxConnections;
    // Node closes a connection beyond the cap before it is a socket of ours ('drop'). Said once until a connection
    // closes: a flood of them at a full listener is not a log line and an audit entry each.
    this.#server.on('drop', (dropped?: { remoteAddress?: string; remotePort?: number }) => {
      const peer = peerOf(dropped).label;
      this.stats.refusedPeers += 1;
      if (this.#full) return;
      this.#full = true;
      this.#options.logger?.warn(`intake: refused a connection: already ${maxConnections} open`, { peer });
      this.#options.onRefusal?.({ kind: 'busy', peer });
    });
  }

  /** Starts listening; resolves with the bound address (port 0: one the system chose). */
  async listen(): Promise<{ host: string; port: number }> {
    const host = this.#options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#options.port ?? 2575, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#address = this.#server.address() as AddressInfo;
    return { host: this.#address.address, port: this.#address.port };
  }

  /** The addresses allowed to connect, as compared (IPv4-mapped read as IPv4); undefined: no allow-list. */
  get allowed(): readonly string[] | undefined {
    return this.#allow ? [...this.#allow] : undefined;
  }

  get address(): { host: string; port: number } | undefined {
    return this.#address ? { host: this.#address.address, port: this.#address.port } : undefined;
  }

  /** Stops accepting, ends every connection (a message being handled is finished by the intake first). */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
    // Refusals counted and not yet said are said now, not lost with the listener.
    for (const key of [...this.#refusalRuns.keys()]) this.#endRefusalRun(key);
  }

  /**
   * A connection refused on connect: said (logged, and audited unless `audit` is false) when it is the first from
   * its address for this reason within the interval, else counted for the run's summary. Counted in stats always.
   */
  #refusePeer(
    reason: PeerRefusalReason,
    { address, label: peer }: Peer,
    said: { audit?: boolean; error?: string } = {},
  ): void {
    if (reason !== 'tls') this.stats.refusedPeers += 1;
    let key = `${reason} ${address}`;
    if (!this.#refusalRuns.has(key) && this.#refusalRuns.size >= MAX_REFUSING_ADDRESSES) key = `${reason} *`;
    const run = this.#refusalRuns.get(key);
    if (run) {
      run.counted += 1;
      return;
    }
    this.#options.logger?.warn(PEER_REFUSAL_LINES[reason], {
      peer,
      ...(said.error !== undefined ? { error: said.error } : {}),
    });
    if (said.audit !== false) this.#options.onRefusal?.({ kind: 'peer', reason, peer });
    const timer = setTimeout(
      () => this.#endRefusalRun(key),
      this.#options.refusalIntervalMs ?? DEFAULT_REFUSAL_INTERVAL_MS,
    );
    timer.unref();
    this.#refusalRuns.set(key, {
      reason,
      address: key.endsWith(' *') ? 'other peers' : address,
      counted: 0,
      timer,
    });
  }

  /** Ends a run: its count, if any, said in one line and one entry; the next refusal is said on its own again. */
  #endRefusalRun(key: string): void {
    const run = this.#refusalRuns.get(key);
    if (!run) return;
    clearTimeout(run.timer);
    this.#refusalRuns.delete(key);
    if (run.counted === 0) return;
    this.#options.logger?.warn(`${PEER_REFUSAL_LINES[run.reason]}: more connections refused`, {
      peer: run.address,
      connections: run.counted,
    });
    if (run.reason !== 'tls' || this.#options.tls?.clientCaPath !== undefined) {
      this.#options.onRefusal?.({ kind: 'peer', reason: run.reason, peer: run.address, count: run.counted });
    }
  }

  /** The peer kept when `socket` (or the TCP socket a TLS socket wraps) arrived; else read now. */
  #peer(socket: Socket): Peer {
    const tcp = tcpSocketOf(socket);
    return this.#arrived.get(socket) ?? (tcp && this.#arrived.get(tcp)) ?? peerOf(socket);
  }

  #connection(socket: Socket): void {
    const arrived = this.#peer(socket);
    const { address, label: peer } = arrived;
    const log = this.#options.logger;
    if (this.#allow && !this.#allow.has(address)) {
      this.#refusePeer('allow', arrived);
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    this.stats.connections = this.#sockets.size;
    this.#refreshPeers();
    socket.setNoDelay(true);
    /** A message is being stored: the wait is the listener's, not the peer's (its ACK's write restarts the timer). */
    let storing = false;
    socket.setTimeout(this.#options.idleTimeoutMs ?? DEFAULT_IDLE_MS);
    // `on`, not setTimeout's callback: that one is called once, and this one may be called again after a store.
    socket.on('timeout', () => {
      if (storing) return;
      log?.info('intake: closed an idle connection', { peer });
      socket.destroy();
    });
    const framer = new MllpFramer(this.#options.maxMessageBytes ?? DEFAULT_MLLP_MESSAGE_BYTES);
    const waiting: Buffer[] = [];
    /** Frames dropped unfinished on this connection: logged and audited for the first, counted at the close. */
    let abandoned = 0;
    let busy = false;
    let closing = false;

    const next = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      while (waiting.length > 0 && !socket.destroyed) {
        const raw = waiting.shift()!;
        let result: IntakeResult;
        storing = true;
        try {
          result = await this.#options.handle(raw, peer);
        } catch (error) {
          // Not stored, so not acknowledged: the sender resends it.
          log?.warn('intake: a message could not be handled; closing the connection without an ACK', {
            peer,
            error: error instanceof Error ? error.message : String(error),
          });
          socket.destroy();
          break;
        } finally {
          storing = false;
        }
        this.stats.messages += 1;
        // A peer that does not read its ACKs is not read on either: they would pile up here for as long as it
        // sends (a resend's stored ACK can be 30 times its message). Idle while waiting, it is timed out.
        if (!socket.destroyed && !socket.write(mllpFrame(result.ack))) await drained(socket);
      }
      busy = false;
      if (socket.isPaused() && !socket.destroyed) socket.resume();
      if (closing && waiting.length === 0) socket.end();
    };

    /** What the framer read: messages queued for `next`, refusals logged (a frame too large ends the connection). */
    const take = (events: FrameEvent[]): void => {
      for (const event of events) {
        if (event.kind === 'message') waiting.push(event.bytes);
        else if (event.kind === 'tooLarge') {
          this.stats.malformedFrames += 1;
          log?.warn('intake: refused a message larger than the limit; closing the connection', {
            peer,
            bytes: event.bytes,
          });
          this.#options.onRefusal?.({ kind: 'tooLarge', peer });
          const ack = buildAck(undefined, {
            code: 'AR',
            errors: [{ hl7Code: '207', text: `The message is larger than the limit (${event.bytes} bytes).` }],
          });
          socket.end(mllpFrame(ack));
          return;
        } else {
          this.stats.malformedFrames += 1;
          abandoned += 1;
          // Once a connection: a run of start bytes is a dropped frame per byte, and a log line and an audit entry
          // each held the core's loop for a minute a megabyte (docs/security.md, finding 40). Closing says the count.
          if (abandoned === 1) {
            log?.warn('intake: an unfinished frame was followed by a new one; it was dropped', { peer });
            this.#options.onRefusal?.({ kind: 'abandoned', peer });
          }
        }
      }
      // One message at a time: stop reading while the ones read are handled.
      if (waiting.length > 0) {
        socket.pause();
        void next();
      }
    };
    let loneEnd: NodeJS.Timeout | undefined;
    const finishAtLoneEnd = () => {
      const event = framer.finishAtLoneEnd();
      if (event && !socket.destroyed) take([event]);
    };

    // The connection's first bytes, until they tell whether it begins as MLLP (openingOf).
    let opening: Buffer | undefined = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      let data = chunk;
      if (opening !== undefined) {
        opening = Buffer.concat([opening, chunk]);
        const begins = openingOf(opening);
        if (begins === undefined) return;
        if (begins !== 'mllp') {
          this.#refusePeer(begins === 'http' ? 'http' : 'notMllp', arrived);
          socket.destroy();
          return;
        }
        data = opening;
        opening = undefined;
      }
      take(framer.push(data));
      // A frame ended by 0x1C alone (no 0x0D) is read once the peer has been quiet a moment after it.
      clearTimeout(loneEnd);
      if (framer.endPending) loneEnd = setTimeout(finishAtLoneEnd, LONE_END_WAIT_MS);
    });
    socket.on('end', () => {
      clearTimeout(loneEnd);
      finishAtLoneEnd();
      closing = true;
      if (!busy && waiting.length === 0) socket.end();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(loneEnd);
      if (abandoned > 1) log?.warn('intake: the connection dropped unfinished frames', { peer, frames: abandoned });
      this.#full = false;
      this.#sockets.delete(socket);
      this.stats.connections = this.#sockets.size;
      this.#refreshPeers();
    });
  }

  #refreshPeers(): void {
    this.stats.peers = [...new Set([...this.#sockets].map((s) => normalisePeer(s.remoteAddress)))];
  }
}
