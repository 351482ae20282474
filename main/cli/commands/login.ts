import type { CliContext } from '../cli-context.js';
import { EXIT, InputError } from '../cli-errors.js';

/**
 * Signs an environment in. Device sign-in prints the code and where to enter it, then waits for the person
 * (honouring the server's interval and slow-down) until signed in, denied, expired, or interrupted. Client
 * credentials use the secret saved by `env add`.
 */
export async function login(ctx: CliContext, environmentId: string): Promise<number> {
  const { registry, signin, events } = ctx.services;
  await ctx.embeddedSandboxFor(environmentId);
  const environment = registry.find(environmentId);
  if (!environment) throw new InputError(`there is no environment "${environmentId}" (see rx-batch env list)`);
  if (!environment.clientId) throw new InputError(`${environmentId} has no client id: run rx-batch env add`);

  if (environment.grant === 'client_credentials') {
    const result = await signin.clientCredentials(environmentId);
    if (ctx.options.json) ctx.json(result.ok ? { outcome: 'signed-in' } : { outcome: 'failed', ...result });
    else ctx.line(result.ok ? `Signed in to ${environmentId}.` : `Sign-in failed: ${result.message}`);
    return result.ok ? EXIT.ok : EXIT.attention;
  }

  const started = await signin.startDevice(environmentId);
  if (ctx.options.json) {
    ctx.json({
      userCode: started.userCode,
      verificationUri: started.verificationUri,
      verificationUriComplete: started.verificationUriComplete,
      expiresAt: started.expiresAt,
    });
  } else {
    ctx.line(`To sign in to ${environment.name}, open ${started.verificationUri}`);
    ctx.line(`and enter the code ${started.userCode}`);
    if (started.verificationUriComplete) ctx.line(`(or open ${started.verificationUriComplete})`);
    ctx.line(`The code expires at ${started.expiresAt}. Waiting…`);
  }
  const off = events.subscribe('signin.changed', (change) => {
    if (change.environmentId === environmentId && change.state === 'slow-down') ctx.warn(change.message);
  });
  const cancel = () => signin.cancelDevice(environmentId);
  ctx.io.signal.addEventListener('abort', cancel, { once: true });
  try {
    const result = await started.result;
    const message =
      result.outcome === 'signed-in'
        ? `Signed in to ${environmentId}.`
        : result.outcome === 'failed'
          ? `Sign-in failed: ${result.message}`
          : `Sign-in ${result.outcome === 'cancelled' ? 'was cancelled' : `ended: ${result.outcome}`}.`;
    if (ctx.options.json) ctx.json({ outcome: result.outcome });
    else ctx.line(message);
    return result.outcome === 'signed-in' ? EXIT.ok : EXIT.attention;
  } finally {
    off();
    ctx.io.signal.removeEventListener('abort', cancel);
  }
}

export async function logout(ctx: CliContext, environmentId: string): Promise<number> {
  const { signin } = ctx.services;
  ctx.environment(environmentId);
  await signin.signOut(environmentId);
  if (ctx.options.json) ctx.json({ outcome: 'signed-out' });
  else ctx.line(`Signed out of ${environmentId}.`);
  return EXIT.ok;
}
