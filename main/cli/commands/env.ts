import { environmentSchema, grantSchema, type Environment } from '../../../shared/environment.js';
import { presetEnvironments } from '../../core/environments/presets.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError, UsageError } from '../cli-errors.js';
import { keepClientSecret, notKeptMessage, unusableMessage, withoutSecret } from './env-secret.js';

export interface EnvAddArgs {
  name: string;
  api: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** Keep the secret even when the identity server cannot be reached to check it (said so). */
  unverified?: boolean;
  grant?: string;
}

/**
 * Adds or updates an environment profile. An existing profile keeps what the command line does not set (code
 * lists, timeouts, pace); a new one starts from the CloudRx defaults. A client secret is kept (in the CLI's
 * secret store, never printed) only once a client-credentials token request with it succeeded, which also signs
 * the environment in; or, with `--unverified`, when the identity server could not be reached, said so. A refused
 * secret is not kept and the command exits 1 (the profile itself is saved). An answer that cannot be used (not
 * JSON, no access token, not Bearer) saves nothing, the profile neither, and exits 1: the token request is made
 * before anything is saved.
 */
export async function envAdd(ctx: CliContext, args: EnvAddArgs): Promise<number> {
  const grant = args.grant ?? (args.clientSecret ? 'client_credentials' : 'device');
  if (!grantSchema.safeParse(grant).success) throw new UsageError(`--grant must be device or client_credentials`);
  if (grant === 'device' && args.clientSecret) {
    throw new UsageError('--client-secret is for --grant client_credentials; device sign-in has no secret');
  }
  if (args.unverified && !args.clientSecret) throw new UsageError('--unverified is for a client secret given here');
  const { registry, store, signin } = ctx.services;
  const existing = registry.find(args.name);
  const template: Environment = existing ?? { ...presetEnvironments()[1]!, kind: 'remote' };
  const candidate = {
    ...environmentSchema.parse(template),
    id: args.name,
    name: existing?.name ?? args.name,
    apiBaseUrl: args.api,
    issuer: args.issuer,
    clientId: args.clientId,
    grant,
  };
  const checked = environmentSchema.safeParse(candidate);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const option = { id: 'NAME', apiBaseUrl: '--api', issuer: '--issuer', clientId: '--client-id' }[
      String(issue.path[0])
    ];
    throw new InputError(`${option ?? String(issue.path[0])}: ${issue.message}`);
  }
  const signIn = args.clientSecret ? await signin.checkClientCredentials(checked.data, args.clientSecret) : null;
  if (signIn && !signIn.ok && signIn.code === 'unusable-answer') {
    ctx.warn(
      unusableMessage(checked.data.id, existing !== undefined, withoutSecret(signIn.message, args.clientSecret!)),
    );
    return EXIT.attention;
  }
  const saved = await registry.update(checked.data);
  store.audit.append({
    actor: 'user',
    action: existing ? 'environment.updated' : 'environment.added',
    environmentId: saved.id,
    details: { grant: saved.grant },
  });
  const secret =
    signIn && args.clientSecret
      ? await keepClientSecret(ctx, saved.id, args.clientSecret, signIn, { unverified: args.unverified === true })
      : null;
  if (secret?.kept === 'unverified') {
    store.audit.append({
      actor: 'user',
      action: 'environment.client-secret-unverified',
      environmentId: saved.id,
      details: { grant: saved.grant, outcome: 'kept-unverified' },
    });
    ctx.warn(`Client secret saved UNVERIFIED: the identity server could not be reached to check it. ${secret.why}`);
  }
  if (secret?.kept === false) ctx.warn(notKeptMessage(saved.id, secret));
  if (ctx.options.json) {
    const clientSecret = secret === null ? 'none' : secret.kept === false ? 'not-saved' : secret.kept;
    ctx.json({ id: saved.id, name: saved.name, kind: saved.kind, grant: saved.grant, clientSecret });
  } else {
    ctx.line(`Environment ${saved.id} ${existing ? 'updated' : 'added'} (${saved.grant}, ${saved.apiBaseUrl}).`);
    if (secret?.kept === 'verified') ctx.line('Client secret accepted by the identity server and saved; signed in.');
    else if (secret?.kept !== false) ctx.line(`Next: rx-batch login ${saved.id}`);
  }
  return secret?.kept === false ? EXIT.attention : EXIT.ok;
}

/** An environment's sign-in state as `env list` words it. */
function listedState(row: { configured: boolean; signedIn: boolean }, unstarted: boolean): string {
  if (unstarted) return 'not started';
  if (!row.configured) return 'no client id';
  return row.signedIn ? 'signed in' : 'signed out';
}

export async function envList(ctx: CliContext): Promise<number> {
  const { registry, signin } = ctx.services;
  const rows = [];
  for (const environment of registry.list()) {
    const status = environment.clientId ? await signin.status(environment.id) : null;
    rows.push({
      id: environment.id,
      name: environment.name,
      kind: environment.kind,
      grant: environment.grant,
      apiBaseUrl: environment.apiBaseUrl,
      configured: environment.clientId !== '',
      signedIn: status?.signedIn ?? false,
    });
  }
  if (ctx.options.json) ctx.json(rows);
  else {
    for (const row of rows) {
      // The local sandbox gets its client id and port when a command first starts it: nothing is missing.
      const unstarted = row.kind === 'local-sandbox' && !row.configured;
      const address = unstarted ? '(started by the commands that use it)' : row.apiBaseUrl;
      ctx.line(`${row.id.padEnd(22)} ${row.grant.padEnd(19)} ${listedState(row, unstarted).padEnd(13)} ${address}`);
    }
  }
  return EXIT.ok;
}
