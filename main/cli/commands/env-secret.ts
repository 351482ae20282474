import type { CheckedSignIn } from '../../core/signin/signin-service.js';
import type { CliContext } from '../cli-context.js';

/**
 * What `env add` did with a client secret. It is kept only once the identity server accepted it: `env add` makes
 * the client-credentials token request `login` makes, before anything is saved (SignInService.checkClientCredentials:
 * a session of its own, in memory), and the sign-in it got is stored once the profile is. A mistyped or revoked
 * secret is never written down. When the identity server cannot be reached (no network at set-up time, a scheduled
 * set-up), the secret is refused too, unless the admin says `--unverified`: then it is kept, and said to be
 * unchecked; `rx-batch login` checks it later. An answer that cannot be used saves nothing at all (unusableMessage).
 */
export type SecretOutcome =
  { kept: 'verified' } | { kept: 'unverified'; why: string } | { kept: false; refused: boolean; why: string };

/** The identity server's words, never the secret itself (a server could echo what it was sent). */
export function withoutSecret(message: string, secret: string): string {
  return message.split(secret).join('[secret]');
}

/** Keeps (or not) a secret checked before the profile `environmentId` was saved. */
export async function keepClientSecret(
  ctx: CliContext,
  environmentId: string,
  secret: string,
  checked: CheckedSignIn,
  options: { unverified: boolean },
): Promise<SecretOutcome> {
  if (checked.ok) {
    await checked.keep();
    return { kept: 'verified' };
  }
  const why = withoutSecret(checked.message, secret);
  if (checked.code !== 'unreachable') return { kept: false, refused: true, why };
  if (!options.unverified) return { kept: false, refused: false, why };
  await ctx.services.registry.session(environmentId).storeClientSecret(secret);
  return { kept: 'unverified', why };
}

/** One line for the admin about a secret that was not kept, and what to do next. */
export function notKeptMessage(environmentId: string, outcome: { refused: boolean; why: string }): string {
  return outcome.refused
    ? `The client secret was not saved: the identity server did not accept it. ${outcome.why} ` +
        `Run rx-batch env add ${environmentId} again with the right secret.`
    : `The client secret was not saved: it could not be checked. ${outcome.why} ` +
        `Run rx-batch env add ${environmentId} again when the identity server can be reached, or add --unverified ` +
        'to keep it unchecked (rx-batch login checks it later).';
}

/**
 * The identity server answered, but with nothing a sign-in can use (not JSON, no access token, not a Bearer
 * token): not an acceptance, and not an outage --unverified could wait out. Nothing is saved, the profile neither.
 */
export function unusableMessage(environmentId: string, existed: boolean, why: string): string {
  return (
    `${why} Nothing was saved: ${environmentId} is not ${existed ? 'updated' : 'added'}. ` +
    `Check --issuer and the client's settings at the identity server, then run rx-batch env add ${environmentId} again.`
  );
}
