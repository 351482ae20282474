import { useId, useState, type FormEvent } from 'react';
import type { CallOutput } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { settle, type Settled } from '../../api/settle.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';

type Attempt = Settled<CallOutput<'signin.clientCredentials'>>;

function Outcome({ attempt }: { attempt: Attempt }) {
  if (!attempt.ok) return <ErrorMessage error={attempt.error} />;
  if (attempt.value.ok)
    return (
      <p role="status" className="message message-good">
        ✓ Signed in.
      </p>
    );
  return (
    <div role="alert" className="message message-error">
      <p className="message-summary">Sign-in failed.</p>
      <p>{attempt.value.message}</p>
    </div>
  );
}

/**
 * A service account: the local sandbox's is the app's own; a remote one needs the client secret CloudRx issued
 * (entered once, kept by the app, never shown again).
 */
export function ClientCredentialsSignIn({
  environment,
  signedIn,
}: {
  environment: EnvironmentView;
  signedIn: boolean;
}) {
  const api = useApi();
  const secretId = useId();
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [attempt, setAttempt] = useState<Attempt>();
  const local = environment.kind === 'local-sandbox';

  async function signIn(clientSecret: string | undefined) {
    setBusy(true);
    const outcome = await settle(
      api.call('signin.clientCredentials', {
        environmentId: environment.id,
        ...(clientSecret ? { clientSecret } : {}),
      }),
    );
    setAttempt(outcome);
    if (outcome.ok && outcome.value.ok) setSecret('');
    setBusy(false);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void signIn(secret || undefined);
  }

  if (local) {
    return (
      <div className="stack">
        <p className="hint">
          Rx Batch signs in to its local sandbox by itself, with the sandbox&apos;s own service account.
        </p>
        <div>
          <button type="button" onClick={() => void signIn(undefined)} disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in again'}
          </button>
        </div>
        {attempt ? <Outcome attempt={attempt} /> : null}
      </div>
    );
  }
  return (
    <form onSubmit={submit} className="stack" aria-label="Service account sign-in">
      <p className="hint">
        A service account signs in with the client secret CloudRx issued with the client id.{' '}
        {signedIn ? 'The saved secret is used unless you enter a new one.' : ''}
      </p>
      <div className="field">
        <label htmlFor={secretId}>Client secret</label>
        <input
          id={secretId}
          type="password"
          value={secret}
          onChange={(event) => setSecret(event.target.value)}
          autoComplete="off"
          maxLength={1000}
        />
      </div>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </div>
      {attempt ? <Outcome attempt={attempt} /> : null}
    </form>
  );
}
