import { INTAKE_SERIES_MINUTES, type IntakeProblemView } from '../../../shared/intake-contract.js';

/**
 * What one intake channel (a listener or a watched folder) received, kept in memory for the Intake screen: counts
 * per minute over the last hour, the last problems, and the batches it fed (folders; a listener's come from the
 * store). Nothing here holds message text.
 */

const MINUTE_MS = 60_000;
const MAX_PROBLEMS = 20;
const MAX_BATCHES = 50;

export class ChannelActivity {
  /** Minute number (ms since the epoch / 60 000) → messages received in it; only the last hour is kept. */
  readonly #minutes = new Map<number, number>();
  readonly #problems: IntakeProblemView[] = [];
  /** Batch id → [name, count], in the order first fed. */
  readonly #batches = new Map<number, { name: string; count: number }>();
  received = 0;

  constructor(private readonly now: () => Date) {}

  /** One message (or file) received now. */
  count(): void {
    this.received += 1;
    const minute = Math.floor(this.now().getTime() / MINUTE_MS);
    this.#minutes.set(minute, (this.#minutes.get(minute) ?? 0) + 1);
    const oldest = minute - INTAKE_SERIES_MINUTES;
    if (this.#minutes.size > INTAKE_SERIES_MINUTES + 1) {
      for (const key of this.#minutes.keys()) if (key <= oldest) this.#minutes.delete(key);
    }
  }

  problem(problem: Omit<IntakeProblemView, 'at'>): void {
    this.#problems.unshift({ at: this.now().toISOString(), ...problem });
    this.#problems.length = Math.min(this.#problems.length, MAX_PROBLEMS);
  }

  fed(batchId: number, name: string): void {
    const entry = this.#batches.get(batchId);
    if (entry) entry.count += 1;
    else this.#batches.set(batchId, { name, count: 1 });
  }

  /** The last hour, oldest minute first, the current minute last. */
  series(): number[] {
    const current = Math.floor(this.now().getTime() / MINUTE_MS);
    return Array.from(
      { length: INTAKE_SERIES_MINUTES },
      (_, i) => this.#minutes.get(current - INTAKE_SERIES_MINUTES + 1 + i) ?? 0,
    );
  }

  problems(): IntakeProblemView[] {
    return [...this.#problems];
  }

  batches(): Array<{ batchId: number; name: string; count: number }> {
    return [...this.#batches]
      .map(([batchId, entry]) => ({ batchId, ...entry }))
      .reverse()
      .slice(0, MAX_BATCHES);
  }
}

/** The start of the minute the series ends with. */
export function seriesEnd(now: Date): string {
  return new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS).toISOString();
}

const PROFILE_LACKS =
  "the sender's profile here gives no payment type, courier or currency (an HL7 order does not carry them)";

const HL7_LOCATION = /^([A-Z][A-Z0-9]{2})\^?(\d*)\^?(\d*)/;

/** An ACK's ERR segments, each split into its fields by the ACK's own separators, with its component separator. */
function errSegments(ack: string): { fields: string[]; cs: string }[] {
  const msh = ack.startsWith('MSH') ? ack : '';
  const fs = msh.charAt(3) || '|';
  const cs = msh.charAt(4) || '^';
  return ack
    .split(/\r\n?|\n/)
    .filter((segment) => segment.startsWith(`ERR${fs}`))
    .map((segment) => ({ fields: segment.split(fs), cs }));
}

/** Whether an ACK carries an ERR segment. */
export function hasErrSegment(ack: string): boolean {
  return errSegments(ack).length > 0;
}

/**
 * Why a message was answered AE or AR, from its ACK's errors (not its warnings, unless asked): each one's HL7 name
 * (ERR-3.2) and location (ERR-2, as `MSH-9`), never ERR-8's sentence, which may quote a patient's field.
 */
export function reasonFromAck(ack: string, options: { warnings?: boolean } = {}): string {
  const reasons: string[] = [];
  for (const { fields, cs } of errSegments(ack)) {
    // ERR-4 W: a warning (the receiver's settings), not what the message got wrong.
    if (fields[4] === 'W' && !options.warnings) continue;
    const name = (fields[3] ?? '').split(cs)[1] ?? '';
    const location = (fields[2] ?? '').split(cs).join('^');
    const where = HL7_LOCATION.exec(location);
    const place = where ? `${where[1]}${where[3] ? `-${where[3]}` : ''}` : '';
    // A warning's 207 names an internal error in HL7's table; here it is always the sender's profile (intake-service).
    const text = fields[4] === 'W' ? PROFILE_LACKS : `${name || 'Error'}${place ? ` (${place})` : ''}`;
    if (!reasons.includes(text)) reasons.push(text);
  }
  if (reasons.length === 0) return 'No reason given in the acknowledgement.';
  return reasons.join('; ').slice(0, 500);
}
