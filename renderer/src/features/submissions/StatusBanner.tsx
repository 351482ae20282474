import { useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { OutboxProgressView } from '../../../../shared/outbox-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useNow } from '../format/use-now.js';
import { useOnline } from '../format/use-online.js';
import { useLive } from '../live/live-context.js';
import { nextTry } from './next-try.js';
import './live-state.css';

/**
 * The one thing to know before looking at numbers: offline, service down, sign-in needed, or paused. Problems
 * are alerts (announced at once); a pause the admin chose is a status. Each says in a sentence what happens next
 * and when; the technical cause is behind a disclosure.
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
  if (progress?.state === 'service-unavailable' && progress.needsSettings) {
    // The service answers, but not in a way the app can use as set up (its certificate, its address or API version):
    // "not answering" would have the admin wait for a recovery that needs them first.
    return (
      <div role="alert" className="banner banner-bad">
        <p className="banner-title">! {environment.name} cannot be used as it is set up, so sending has stopped.</p>
        <p className="banner-cause">{sentence(progress.message)}</p>
        <p>
          Orders wait here safely and go out by themselves once it is put right, in the environment&apos;s{' '}
          <a href="#/settings">settings</a> or by the service&apos;s operator. Nothing is lost or sent twice.
        </p>
        <TryAgain environment={environment} progress={progress} />
      </div>
    );
  }
  if (progress?.state === 'service-unavailable' && progress.accessRefused) {
    // It answers, refusing every request (403): "not answering" would hide that access needs putting right.
    return (
      <div role="alert" className="banner banner-bad">
        <p className="banner-title">
          ! {environment.name} refuses this computer&apos;s requests, so sending has stopped.
        </p>
        <p className="banner-cause">{sentence(progress.message)}</p>
        <p>
          No order was refused for itself: they wait here safely and go out by themselves once requests get through (ask
          whoever runs the service, its firewall or its allow-list). Nothing is lost or sent twice.
        </p>
        <TryAgain environment={environment} progress={progress} />
      </div>
    );
  }
  if (progress?.state === 'service-unavailable') {
    return (
      <div role="alert" className="banner banner-bad">
        <p className="banner-title">! The Order Service is not answering, so sending has stopped for now.</p>
        <p>
          Orders for {environment.name} wait here safely and go out by themselves when it answers again. Nothing is lost
          or sent twice.
        </p>
        <TryAgain environment={environment} progress={progress} />
        <TechnicalCause message={progress.message} />
      </div>
    );
  }
  if (progress?.state === 'sign-in-required') {
    return (
      <div role="alert" className="banner banner-bad">
        <p className="banner-title">! Sign in again to go on sending.</p>
        <p>
          {environment.name} no longer accepts this computer&apos;s sign-in. Orders wait here safely until you{' '}
          <a href="#/signin">sign in again</a>; sending then goes on by itself.
        </p>
        <TryAgain environment={environment} progress={progress} />
        <TechnicalCause message={progress.message} />
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

/** When the next try is, counted down, and "Try now" (which probes at once, or tries the sign-in again). */
function TryAgain({ environment, progress }: { environment: EnvironmentView; progress: OutboxProgressView }) {
  const api = useApi();
  const { setProgress } = useLive();
  const now = useNow(1000);
  // "Trying now…" until a new report (the try's outcome) replaces the one on screen when it was asked for.
  const [triedOn, setTriedOn] = useState<OutboxProgressView>();
  const trying = triedOn === progress;
  const [failure, setFailure] = useState<unknown>();

  async function tryNow() {
    setTriedOn(progress);
    setFailure(undefined);
    try {
      setProgress(await api.call('outbox.resume', { environmentId: environment.id }));
    } catch (error) {
      setFailure(error);
      setTriedOn(undefined);
    }
  }

  const next = nextTry(progress.nextAttemptAt, now);
  return (
    <>
      <div className="banner-actions">
        <p>
          {trying || next?.due ? (
            'Trying again now…'
          ) : next ? (
            <>
              Next try{' '}
              <span role="timer" aria-label={`Next try ${next.words}`} className="countdown-clock">
                {next.text}
              </span>
              .
            </>
          ) : (
            'Nothing is tried again until you sign in.'
          )}
        </p>
        <button type="button" className="secondary" onClick={() => void tryNow()} disabled={trying}>
          Try now
        </button>
      </div>
      {failure ? <ErrorMessage error={failure} /> : null}
    </>
  );
}

/** The core's cause ("the service's certificate has expired: ask …; nothing was sent (CODE)") as a sentence. */
function sentence(message: string | null): string {
  const text = (message ?? '').trim();
  if (!text) return 'The service did not take the last requests.';
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?)]$/.test(text) ? '' : '.'}`;
}

function TechnicalCause({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <details className="banner-details">
      <summary>Technical details</summary>
      <p>
        <code>{message}</code>
      </p>
    </details>
  );
}
