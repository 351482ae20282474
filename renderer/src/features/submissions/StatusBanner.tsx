import type { EnvironmentView } from '../../../../shared/environment.js';
import type { OutboxProgressView } from '../../../../shared/outbox-views.js';
import { useOnline } from '../format/use-online.js';
import { useLive } from '../live/live-context.js';

/**
 * The one thing to know before looking at numbers: offline, service down, sign-in needed, or paused. Problems
 * are alerts (announced at once); a pause the admin chose is a status.
 */
export function StatusBanner({
  environment,
  progress,
}: {
  environment: EnvironmentView;
  progress: OutboxProgressView | undefined;
}) {
  const online = useOnline();
  const { signIn } = useLive();
  const status = signIn[environment.id];

  if (!online) {
    return (
      <div role="alert" className="banner banner-bad">
        <p className="banner-title">! This computer is offline.</p>
        <p>Orders wait here safely and are sent when the connection is back. Nothing is lost or sent twice.</p>
      </div>
    );
  }
  if (progress?.state === 'service-unavailable') {
    return (
      <div role="alert" className="banner banner-bad">
        <p className="banner-title">! The Order Service is not answering.</p>
        <p>
          Orders wait here and are sent by themselves when it is back; Rx Batch checks now and then. Nothing is lost or
          sent twice.
        </p>
        {progress.message ? <p className="hint">{progress.message}</p> : null}
      </div>
    );
  }
  if (progress?.state === 'sign-in-required') {
    return (
      <div role="alert" className="banner banner-bad">
        <p className="banner-title">! Sign-in required.</p>
        <p>
          {environment.name} no longer accepts this sign-in. Orders wait here until you{' '}
          <a href="#/signin">sign in again</a>; sending then goes on by itself.
        </p>
      </div>
    );
  }
  if (progress?.state === 'paused') {
    return (
      <div role="status" className="banner banner-waiting">
        <p className="banner-title">Sending is paused.</p>
        <p>{progress.message ?? 'Orders wait until sending is resumed.'}</p>
      </div>
    );
  }
  if (status && !status.signedIn) {
    return (
      <div role="status" className="banner banner-waiting">
        <p className="banner-title">Not signed in to {environment.name}.</p>
        <p>
          Orders wait here until you <a href="#/signin">sign in</a>.
        </p>
      </div>
    );
  }
  return null;
}
