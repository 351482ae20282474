import type { EnvironmentView } from '../../../../shared/environment.js';
import { useLive } from '../live/live-context.js';

/** Who is signed in to the selected environment, in words and a symbol (never colour alone). */
export function IdentityBadge({ environment }: { environment: EnvironmentView }) {
  const { signIn, device } = useLive();
  const status = signIn[environment.id];
  const login = device[environment.id];
  let text: string;
  let tone: 'good' | 'bad' | 'waiting';
  if (!status) {
    text = 'Checking sign-in…';
    tone = 'waiting';
  } else if (status.signedIn) {
    const who = status.subject ?? (status.grant === 'client_credentials' ? 'the service account' : 'unknown user');
    text = `Signed in as ${who}`;
    tone = 'good';
  } else if (login?.phase === 'waiting' || status.device) {
    text = 'Signing in…';
    tone = 'waiting';
  } else {
    text = 'Not signed in';
    tone = 'bad';
  }
  return (
    <p className={`identity identity-${tone}`} aria-label="Signed-in identity" role="status">
      <span aria-hidden="true" className="identity-symbol">
        {tone === 'good' ? '✓' : tone === 'bad' ? '!' : '…'}
      </span>{' '}
      {text}
    </p>
  );
}
