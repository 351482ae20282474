import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { BodyTooLargeError, readBody } from './form-body.js';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 §3.5: each `slow_down` adds 5 seconds to the interval the client must keep. */
const SLOW_DOWN_STEP_SECONDS = 5;
/** Polls closer together than this share of the interval count as too fast (timers and the network jitter). */
const TOO_FAST_SHARE = 0.5;
const FORGET_POLLS_AFTER_MS = 30 * 60 * 1000;

type Next = () => Promise<unknown>;

export interface TokenEndpointTweaks {
  tokenPath: string;
  deviceAuthorizationPath: string;
  /** Advertised in device authorization responses and enforced with `slow_down`. */
  pollIntervalSeconds: number;
}

/**
 * Koa middleware run before oidc-provider's own routes, for three things the provider does not do by itself:
 * - accept comma-separated scopes (one public CloudRx page shows them that way) by rewriting them to spaces;
 * - advertise a poll `interval` in device authorization responses;
 * - answer `slow_down` to a device that polls faster than that interval (RFC 8628 §3.5).
 * Rewriting a form body means reading it here and handing the provider a replayed copy.
 */
export function tokenEndpointTweaks(o: TokenEndpointTweaks) {
  const polls = new Map<string, { lastAt: number; intervalSeconds: number }>();

  return async function tweak(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    if (ctx.method === 'POST' && ctx.path === o.deviceAuthorizationPath) {
      await next();
      const body: unknown = ctx.body;
      if (ctx.status === 200 && body && typeof body === 'object' && 'device_code' in body) {
        (body as Record<string, unknown>).interval = o.pollIntervalSeconds;
      }
      return;
    }
    if (ctx.method !== 'POST' || ctx.path !== o.tokenPath || !ctx.is('application/x-www-form-urlencoded')) {
      await next();
      return;
    }

    let raw: Buffer;
    try {
      raw = await readBody(ctx.req);
    } catch (err) {
      ctx.status = err instanceof BodyTooLargeError ? 413 : 400;
      ctx.body = { error: 'invalid_request', error_description: 'could not read the request body' };
      return;
    }
    const form = new URLSearchParams(raw.toString('utf8'));

    const deviceCode = form.get('device_code');
    if (form.get('grant_type') === DEVICE_CODE_GRANT && deviceCode) {
      const now = Date.now();
      for (const [code, poll] of polls) if (now - poll.lastAt > FORGET_POLLS_AFTER_MS) polls.delete(code);
      const previous = polls.get(deviceCode);
      const intervalSeconds = previous?.intervalSeconds ?? o.pollIntervalSeconds;
      if (previous && now - previous.lastAt < intervalSeconds * 1000 * TOO_FAST_SHARE) {
        polls.set(deviceCode, { lastAt: now, intervalSeconds: intervalSeconds + SLOW_DOWN_STEP_SECONDS });
        ctx.status = 400;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { error: 'slow_down', error_description: `poll at most every ${intervalSeconds} seconds` };
        return;
      }
      polls.set(deviceCode, { lastAt: now, intervalSeconds });
    }

    let body = raw;
    const scope = form.get('scope');
    if (scope?.includes(',')) {
      form.set(
        'scope',
        scope
          .split(/[\s,]+/)
          .filter(Boolean)
          .join(' '),
      );
      body = Buffer.from(form.toString(), 'utf8');
    }
    const replay = replayRequest(ctx.req, body);
    ctx.req = replay;
    ctx.request.req = replay;
    ctx.response.req = replay;
    await next();
  };
}

/** A stand-in for the consumed request: same headers and socket, the (possibly rewritten) body still unread. */
function replayRequest(original: IncomingMessage, body: Buffer): IncomingMessage {
  const headers = { ...original.headers, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  const stream = new PassThrough();
  stream.end(body);
  return Object.assign(stream, {
    headers,
    rawHeaders: original.rawHeaders,
    method: original.method,
    url: original.url,
    httpVersion: original.httpVersion,
    httpVersionMajor: original.httpVersionMajor,
    httpVersionMinor: original.httpVersionMinor,
    socket: original.socket,
    connection: original.socket,
    complete: true,
    aborted: false,
  }) as unknown as IncomingMessage;
}
