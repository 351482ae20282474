import { z } from 'zod';

/** Fault switches of the sandbox: what goes wrong, and how often, on `/api/` routes (never on admin routes). */

export interface SandboxFaults {
  /** Share of API requests answered `500` with the envelope. */
  errorRate: number;
  /** Delay before an API request is handled, in milliseconds. */
  latencyMs: number;
  /** Up to this much more delay, drawn at random for each request (so answers overtake each other). */
  latencyJitterMs: number;
  /** Share of API requests answered `429` with `Retry-After`. */
  rateLimitRate: number;
  /** The `Retry-After` value sent with `429`, in seconds. */
  retryAfterSeconds: number;
  /** Share of API requests whose socket is destroyed after the request was read and before it is processed. */
  resetRate: number;
  /** Share of creates and cancels that are committed to the store, then answered by destroying the socket. */
  commitThenDropRate: number;
  /**
   * Share of creates and cancels that are committed to the store, then answered `commitThenStatus` with the error
   * envelope: a gateway or load balancer whose backend did the work but whose answer was lost (502/504), or a
   * service that failed after its write (500, 503).
   */
  commitThenStatusRate: number;
  /** The 5xx status those get. */
  commitThenStatus: number;
  /** Every API request has its socket destroyed on arrival, unread and unanswered. */
  outage: boolean;
  /**
   * Every API request is answered 404 with a web server's own "Not Found" page, as the old path of a service that
   * moved its calls to another address or API version is.
   */
  movedApi: boolean;
}

export const NO_FAULTS: SandboxFaults = {
  errorRate: 0,
  latencyMs: 0,
  latencyJitterMs: 0,
  rateLimitRate: 0,
  retryAfterSeconds: 1,
  resetRate: 0,
  commitThenDropRate: 0,
  commitThenStatusRate: 0,
  commitThenStatus: 502,
  outage: false,
  movedApi: false,
};

const rate = z.number().min(0).max(1);

/** A partial update, as `setFaults()` and `POST /__sandbox/faults` take it. */
export const faultsPatchSchema = z
  .object({
    errorRate: rate,
    latencyMs: z.number().int().min(0).max(600_000),
    latencyJitterMs: z.number().int().min(0).max(600_000),
    rateLimitRate: rate,
    retryAfterSeconds: z.number().int().min(0).max(86_400),
    resetRate: rate,
    commitThenDropRate: rate,
    commitThenStatusRate: rate,
    commitThenStatus: z.number().int().min(500).max(599),
    outage: z.boolean(),
    movedApi: z.boolean(),
  })
  .partial()
  .strict();

export class FaultSwitches {
  private current: SandboxFaults;

  constructor(
    initial: Partial<SandboxFaults> = {},
    private readonly random: () => number = Math.random,
  ) {
    this.current = { ...NO_FAULTS, ...faultsPatchSchema.parse(initial) };
  }

  get(): SandboxFaults {
    return { ...this.current };
  }

  /** Throws a ZodError on an invalid patch, so a typo cannot silently switch nothing. */
  set(patch: Partial<SandboxFaults>): SandboxFaults {
    this.current = { ...this.current, ...faultsPatchSchema.parse(patch) };
    return this.get();
  }

  /** Rolls the dice for one request: rate 1 always fires, rate 0 never does. */
  fires(key: 'errorRate' | 'rateLimitRate' | 'resetRate' | 'commitThenDropRate' | 'commitThenStatusRate'): boolean {
    const chance = this.current[key];
    return chance > 0 && this.random() < chance;
  }

  /** This request's delay: `latencyMs` plus a random share of `latencyJitterMs`. */
  latency(): number {
    const { latencyMs, latencyJitterMs } = this.current;
    return latencyJitterMs > 0 ? latencyMs + Math.floor(this.random() * (latencyJitterMs + 1)) : latencyMs;
  }
}
