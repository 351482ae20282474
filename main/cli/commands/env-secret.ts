import type { CliContext } from '../cli-context.js';

/**
 * What `env add` did with a client secret. It is kept only once the identity server accepted it: `env add` makes
 * the same client-credentials token request `login` makes (SignInService → AuthSession, which stores the secret
 * only when a token came back), so a mistyped or revoked secret is never written down. When the identity server
 * cannot be reached (no network at set-up time, a scheduled set-up), the secret is refused too, unless the admin
 * says `--unverified`: then it is kept, and said to be unchecked; `rx-batch login` checks it later.
 */
export type SecretOutcome =
  { kept: 'verified' } | { kept: 'unverified'; why: string } | { kept: false; refused: boolean; why: string };

export async function checkAndKeepClientSecret(
  ctx: CliContext,
  environmentId: string,
  secret: string,
  options: { unverified: boolean },
): Promise<SecretOutcome> {
  const { signin, registry } = ctx.services;
  const result = await signin.clientCredentials(environmentId, secret);
  if (result.ok) return { kept: 'verified' };
  // The server's words, never the secret itself (a server could echo what it was sent).
  const why = result.message.split(secret).join('[secret]');
  if (result.code !== 'unreachable') return { kept: false, refused: true, why };
  if (!options.unverified) return { kept: false, refused: false, why };
  await registry.session(environmentId).storeClientSecret(secret);
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
