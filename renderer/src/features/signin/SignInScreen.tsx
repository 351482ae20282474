import { useRef, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { settle, type Settled } from '../../api/settle.js';
import { ConnectionCheck } from '../connection/ConnectionCheck.js';
import { GRANT_LABELS } from '../environments/environment-labels.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { formatDateTime } from '../format/format-date.js';
import { useNow } from '../format/use-now.js';
import { useLive } from '../live/live-context.js';
import { ClientCredentialsSignIn } from './ClientCredentialsSignIn.js';
import { DeviceSignIn } from './DeviceSignIn.js';
import { accessHint } from './access-hint.js';

/** Sign-in to the selected environment: its state, the way in (device code or service account), sign out. */
export function SignInScreen({ environment }: { environment: EnvironmentView }) {
  const api = useApi();
  const { signIn, refreshSignIn, device } = useLive();
  const status = signIn[environment.id];
  // A code is on screen and waits for the admin: said as the header says it, not as "Not signed in".
  const waiting = device[environment.id]?.phase === 'waiting' || Boolean(status?.device);
  const [signOut, setSignOut] = useState<Settled<unknown>>();
  const [signingOut, setSigningOut] = useState(false);
  const now = useNow(30_000);
  const panelRef = useRef<HTMLElement>(null);
  // "Sign out" goes once it has worked: the keyboard goes on to the way back in, not to the top of the page.
  useFocusWhenLost(signingOut, () =>
    panelRef.current?.querySelector<HTMLElement>('button:not(:disabled), input:not(:disabled), a[href]'),
  );

  async function doSignOut() {
    setSigningOut(true);
    setSignOut(await settle(api.call('signin.signOut', { environmentId: environment.id })));
    await refreshSignIn(environment.id);
    setSigningOut(false);
  }

  const signedIn = status?.signedIn ?? false;
  return (
    <section aria-labelledby="screen-heading" className="screen">
      <h2 id="screen-heading" tabIndex={-1}>
        Sign-in
      </h2>
      <section aria-labelledby="signin-heading" className="panel" ref={panelRef}>
        <div className="panel-head">
          <h3 id="signin-heading">Sign-in to {environment.name}</h3>
          {signedIn ? (
            <button type="button" className="secondary" onClick={() => void doSignOut()} disabled={signingOut}>
              {signingOut ? 'Signing out…' : 'Sign out'}
            </button>
          ) : null}
        </div>
        <dl className="report">
          <dt>Method</dt>
          <dd>{GRANT_LABELS[environment.grant]}</dd>
          <dt>State</dt>
          <dd>
            {!status ? (
              'Checking…'
            ) : status.signedIn ? (
              <strong className="good">✓ Signed in{status.subject ? ` as ${status.subject}` : ''}</strong>
            ) : waiting ? (
              <strong className="waiting">… Signing in: waiting for the code below to be entered</strong>
            ) : (
              <strong className="bad">! Not signed in</strong>
            )}
          </dd>
          {status?.signedIn && status.expiresAt ? (
            <>
              <dt>Access until</dt>
              <dd>
                {formatDateTime(status.expiresAt)} <span className="hint">{accessHint(status.expiresAt, now)}</span>
              </dd>
            </>
          ) : null}
        </dl>
        {signOut && !signOut.ok ? <ErrorMessage error={signOut.error} /> : null}
        {signOut?.ok && !signedIn && !waiting ? (
          <p role="status" className="message">
            Signed out of {environment.name}.
          </p>
        ) : null}
        {!environment.clientId ? (
          <p className="message">
            {environment.name} has no client id yet. Add the one CloudRx issued you under{' '}
            <a href="#/settings">Settings</a>, then sign in here.
          </p>
        ) : environment.grant === 'device' ? (
          <DeviceSignIn environment={environment} signedIn={signedIn} />
        ) : (
          <ClientCredentialsSignIn environment={environment} signedIn={signedIn} />
        )}
      </section>
      <ConnectionCheck environment={environment} />
    </section>
  );
}
