import { useRef } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { useLive, type DeviceLogin } from '../live/live-context.js';
import { DeviceCode } from './DeviceCode.js';

type Ended = Extract<DeviceLogin, { phase: 'ended' }>;

/** Plain words for how a device sign-in ended; failures are alerts, the rest statuses. */
function EndedMessage({ login }: { login: Ended }) {
  switch (login.outcome) {
    case 'signed-in':
      return (
        <p role="status" className="message message-good">
          ✓ Signed in.
        </p>
      );
    case 'cancelled':
      return (
        <p role="status" className="message">
          Sign-in was cancelled.
        </p>
      );
    case 'denied':
      return (
        <div role="alert" className="message message-error">
          <p className="message-summary">Sign-in was denied.</p>
          <p>Access was refused in the browser (Deny or Cancel was chosen there). Start again when ready.</p>
        </div>
      );
    case 'expired':
      return (
        <div role="alert" className="message message-error">
          <p className="message-summary">The code expired before sign-in was finished.</p>
          <p>Start again for a new code.</p>
        </div>
      );
    case 'failed':
      return (
        <div role="alert" className="message message-error">
          <p className="message-summary">Sign-in failed.</p>
          <p>{login.message}</p>
        </div>
      );
  }
}

export function DeviceSignIn({ environment, signedIn }: { environment: EnvironmentView; signedIn: boolean }) {
  const { device, startDevice, cancelDevice } = useLive();
  const login = device[environment.id];
  // Each step replaces the button that led to it: the keyboard goes to the new step's first button (the code's
  // copy button, then "Start again" or "Sign in again").
  const holderRef = useRef<HTMLDivElement>(null);
  useFocusWhenLost(login?.phase, () => holderRef.current?.querySelector('button'));

  if (login?.phase === 'waiting') {
    return (
      <div ref={holderRef}>
        <DeviceCode
          start={login.start}
          intervalSeconds={login.intervalSeconds}
          slowDown={login.slowDown}
          onCancel={() => void cancelDevice(environment.id)}
        />
      </div>
    );
  }
  return (
    <div className="stack" ref={holderRef}>
      {login?.phase === 'ended' ? <EndedMessage login={login} /> : null}
      {login?.phase === 'error' ? <ErrorMessage error={login.error} /> : null}
      <p className="hint">
        Device sign-in: Rx Batch shows a code, you enter it on the identity server&apos;s page in a browser (on this
        computer or a phone) and sign in there. Rx Batch never sees your password.
      </p>
      <div>
        <button type="button" onClick={() => void startDevice(environment.id)} disabled={login?.phase === 'starting'}>
          {login?.phase === 'starting'
            ? 'Asking for a code…'
            : login?.phase === 'ended' && login.outcome !== 'signed-in'
              ? 'Start again'
              : signedIn
                ? 'Sign in again'
                : 'Sign in with a code'}
        </button>
      </div>
    </div>
  );
}
