/**
 * MLLP framing (HL7 v2 Minimal Lower Layer Protocol): a message is sent as `0x0B <message> 0x1C 0x0D`.
 * `MllpFramer` is a streaming parser: TCP delivers a frame in any number of chunks, or several frames in one, so
 * it keeps state across `push` calls. Bytes outside a frame (garbage, stray newlines) are skipped and counted; a
 * start byte inside an unfinished frame abandons that frame (counted as malformed) and starts a new one; a frame
 * larger than `maxBytes` is dropped whole (its bytes are skipped up to its end) and reported as `tooLarge`.
 *
 * Some senders end a frame with 0x1C alone (no 0x0D). 0x1C cannot be part of HL7 text, so a 0x1C directly followed by
 * the next frame's start byte ends its frame; one the peer then sends nothing after is ended by the listener after a
 * moment (`endPending`, `finishAtLoneEnd`), so such a sender gets its ACK instead of waiting until it times out.
 */

export const MLLP_START = 0x0b;
export const MLLP_END = 0x1c;
export const MLLP_CR = 0x0d;

export type FrameEvent =
  { kind: 'message'; bytes: Buffer } | { kind: 'tooLarge'; bytes: number } | { kind: 'abandoned'; bytes: number };

export class MllpFramer {
  readonly #maxBytes: number;
  #inFrame = false;
  #parts: Buffer[] = [];
  #size = 0;
  /** The last byte of the previous chunk was 0x1C inside a frame: a 0x0D first in the next one ends the frame. */
  #pendingEnd = false;
  #oversized = false;
  /** Bytes seen outside any frame. */
  garbageBytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Whether part of a frame has been read and its end not yet. */
  get inFrame(): boolean {
    return this.#inFrame;
  }

  /** Whether the bytes so far end inside a frame with 0x1C: its end, if the 0x0D never comes. */
  get endPending(): boolean {
    return this.#inFrame && this.#pendingEnd;
  }

  /** Ends a frame whose 0x1C came last and no 0x0D after it (see the file comment); undefined if none is pending. */
  finishAtLoneEnd(): FrameEvent | undefined {
    if (!this.endPending) return undefined;
    this.#pendingEnd = false;
    return this.#finish();
  }

  push(chunk: Buffer): FrameEvent[] {
    const events: FrameEvent[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (!this.#inFrame) {
        const start = chunk.indexOf(MLLP_START, i);
        if (start < 0) {
          this.garbageBytes += chunk.length - i;
          return events;
        }
        this.garbageBytes += start - i;
        this.#begin();
        i = start + 1;
        continue;
      }
      if (this.#pendingEnd) {
        this.#pendingEnd = false;
        if (chunk[i] === MLLP_CR || chunk[i] === MLLP_START) {
          events.push(this.#finish());
          if (chunk[i] === MLLP_CR) i += 1;
          continue;
        }
        this.#append(Buffer.of(MLLP_END));
      }
      const end = chunk.indexOf(MLLP_END, i);
      const restart = chunk.indexOf(MLLP_START, i);
      if (restart >= 0 && (end < 0 || restart < end)) {
        events.push({ kind: 'abandoned', bytes: this.#size + (restart - i) });
        this.#begin();
        i = restart + 1;
        continue;
      }
      if (end < 0) {
        this.#append(chunk.subarray(i));
        return events;
      }
      this.#append(chunk.subarray(i, end));
      if (end + 1 >= chunk.length) {
        this.#pendingEnd = true;
        return events;
      }
      if (chunk[end + 1] === MLLP_CR) {
        events.push(this.#finish());
        i = end + 2;
      } else if (chunk[end + 1] === MLLP_START) {
        // 0x1C alone, then the next frame: the sender ends its frames without 0x0D.
        events.push(this.#finish());
        i = end + 1;
      } else {
        // A lone 0x1C is part of the message (MLLP only ends a frame with 0x1C 0x0D).
        this.#append(chunk.subarray(end, end + 1));
        i = end + 1;
      }
    }
    return events;
  }

  #begin(): void {
    this.#inFrame = true;
    this.#parts = [];
    this.#size = 0;
    this.#oversized = false;
    this.#pendingEnd = false;
  }

  #append(bytes: Buffer): void {
    this.#size += bytes.length;
    if (this.#oversized) return;
    if (this.#size > this.#maxBytes) {
      this.#oversized = true;
      this.#parts = [];
      return;
    }
    // A copy: the socket may reuse its chunk's memory.
    if (bytes.length > 0) this.#parts.push(Buffer.from(bytes));
  }

  #finish(): FrameEvent {
    this.#inFrame = false;
    const size = this.#size;
    const parts = this.#parts;
    this.#parts = [];
    this.#size = 0;
    if (this.#oversized) return { kind: 'tooLarge', bytes: size };
    return { kind: 'message', bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, size) };
  }
}

/** One message in an MLLP frame. */
export function mllpFrame(text: string | Buffer): Buffer {
  const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return Buffer.concat([Buffer.of(MLLP_START), body, Buffer.of(MLLP_END, MLLP_CR)]);
}
