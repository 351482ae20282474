import { useEffect, useRef, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { IntakeStatus } from '../../../../shared/intake-contract.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { formatTime } from '../format/format-date.js';
import { IntakeChannel } from './IntakeChannel.js';
import { IntakeRulesForm } from './IntakeRulesForm.js';
import { SenderBindings } from './SenderBindings.js';
import { StartIntakeForm } from './StartIntakeForm.js';
import { describeRunRules, serveCommand } from './intake-text.js';
import './intake.css';

/** The per-minute chart moves on with the clock even when nothing arrives. */
const REFRESH_MS = 30_000;

/**
 * Live intake while the app is open (issue #17): each MLLP listener and watched folder with its state, peers,
 * messages per minute, last problems and the batches it fed; start and stop; the environment's staging rules,
 * saved for it (the next start and `rx-batch serve` use them); and, plainly, that it all stops when the app closes
 * unless `rx-batch serve` runs.
 */
export function IntakeScreen({ environment, desktop }: { environment: EnvironmentView; desktop: boolean }) {
  const api = useApi();
  const [status, setStatus] = useState<IntakeStatus>();
  const [loadError, setLoadError] = useState<unknown>();
  const [port, setPort] = useState('2575');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  // Starting replaces the start form with "Stop intake", stopping the other way round: the keyboard follows (counted
  // per start or stop made here, so a status read on opening the screen moves nothing).
  const [switched, setSwitched] = useState(0);
  const startRef = useRef<HTMLElement>(null);
  const stopRef = useRef<HTMLButtonElement>(null);
  useFocusWhenLost(switched, () => stopRef.current ?? startRef.current?.querySelector('button[type="submit"]'));
  useEvent('intake.changed', setStatus);
  useEffect(() => {
    let current = true;
    const read = () =>
      api.call('intake.status', {}).then(
        (answer) => {
          if (!current) return;
          setStatus(answer);
          setLoadError(undefined);
        },
        (error: unknown) => {
          if (current) setLoadError(error);
        },
      );
    void read();
    const timer = setInterval(() => void read(), REFRESH_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [api]);

  async function stop() {
    setBusy(true);
    setFailure(undefined);
    try {
      setStatus(await api.call('intake.stop', {}));
      setSwitched((n) => n + 1);
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  const running = status?.running === true;
  const elsewhere = running && status.environmentId !== environment.id;
  const command = serveCommand(environment.id, status, port);
  // Under `rx-batch serve --ui` the intake is serve's: shown, never started or stopped from here.
  const served = status?.serve ?? null;
  const listeners = running
    ? status.channels.filter((c) => c.kind === 'mllp' && c.state !== 'stopped' && c.state !== 'failed')
    : [];
  return (
    <section aria-labelledby="screen-heading" className="screen">
      <h2 id="screen-heading" tabIndex={-1}>
        Intake
      </h2>
      {served ? (
        <section aria-labelledby="intake-serve-heading" className="panel intake-notice">
          <h3 id="intake-serve-heading">Run by rx-batch serve</h3>
          <p>
            This intake is run by <code>rx-batch serve</code> (PID {served.pid}) on this computer, which also serves
            this page. It keeps receiving orders when this page is closed, and it cannot be started or stopped from
            here: it stops when serve is stopped (SIGTERM, or Ctrl+C where it runs). Orders held for review appear in
            Preview, one batch per sender per day.
          </p>
        </section>
      ) : (
        <section aria-labelledby="intake-closes-heading" className="panel intake-notice">
          <h3 id="intake-closes-heading">Intake stops when this app closes</h3>
          <p>
            The listener and watched folders below run only while Rx Batch is open. When you close it, clinic systems
            get no answer and files wait in their folders. To receive orders unattended, run the service on this
            computer instead, with the same settings:
          </p>
          <pre className="intake-command">
            <code>{command}</code>
          </pre>
        </section>
      )}

      {loadError ? <ErrorMessage error={loadError} /> : null}
      {!status ? <p role="status">Reading the intake…</p> : null}

      {status && !running && !served ? (
        <section aria-labelledby="intake-start-heading" className="panel" ref={startRef}>
          <h3 id="intake-start-heading">
            {status.channels.length === 0 ? 'Nothing is receiving orders' : 'Intake stopped'}
          </h3>
          <p>
            Point a clinic system's HL7 (MLLP) sender at this computer's port, or have it drop files into a folder;
            orders go through the same checks as an import. Messages held for review appear in Preview, one batch per
            sender per day.
          </p>
          <StartIntakeForm
            environment={environment}
            allowedFolders={status.allowedFolders}
            desktop={desktop}
            port={port}
            onPort={setPort}
            onStarted={(started) => {
              setStatus(started);
              setSwitched((n) => n + 1);
            }}
          />
        </section>
      ) : null}

      {status && running ? (
        <section aria-labelledby="intake-running-heading" className="panel">
          <div className="panel-head">
            <h3 id="intake-running-heading">Running since {status.startedAt ? formatTime(status.startedAt) : '—'}</h3>
            {served ? null : (
              <button type="button" className="secondary" ref={stopRef} onClick={() => void stop()} disabled={busy}>
                {busy ? 'Stopping…' : 'Stop intake'}
              </button>
            )}
          </div>
          <p>
            For {elsewhere ? `the environment ${status.environmentId}, not the one selected` : environment.name};{' '}
            {status.rules
              ? describeRunRules(status.rules)
              : status.onArrival === 'send'
                ? 'valid orders are sent as they arrive.'
                : 'orders are held for review in Preview.'}
          </p>
          {failure ? <ErrorMessage error={failure} /> : null}
        </section>
      ) : null}

      {status ? <SenderBindings listeners={listeners} port={port} /> : null}

      <section aria-labelledby="intake-rules-heading" className="panel">
        <h3 id="intake-rules-heading">When orders arrive</h3>
        <p>
          The rules saved here are {environment.name}&apos;s: the next start here and{' '}
          <code>rx-batch serve --env {environment.id}</code> use them.
        </p>
        <IntakeRulesForm key={environment.id} environment={environment} runningHere={running && !elsewhere} />
      </section>

      {status?.channels.map((channel, index) => (
        <IntakeChannel key={channel.address} channel={channel} index={index} />
      ))}
    </section>
  );
}
