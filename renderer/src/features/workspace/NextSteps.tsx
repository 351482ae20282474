import { useCallback, useId, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { downloadText } from '../../download-text.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useLive } from '../live/live-context.js';
import { leftInPreview } from '../submissions/left-in-preview.js';
import { routeHref } from './route.js';

/**
 * What a screen with nothing on it yet says (issue #13): why it is empty, then what to do next, in order: sign in
 * (or say it is done), download the template, import a file and review it in Preview. Nothing is sent before the
 * admin accepts, and the screen says so. Once a file is imported and left in Preview, the last step is that batch
 * (a newcomer who imported and never accepted would otherwise be told to import again). `waitingListedBelow`: the
 * screen lists those batches itself (Submissions), so the step points there instead of repeating the links.
 */
export function NextSteps({
  environment,
  title,
  why,
  waitingListedBelow = false,
}: {
  environment: EnvironmentView;
  title: string;
  why: string;
  waitingListedBelow?: boolean;
}) {
  const headingId = useId();
  const api = useApi();
  const { signIn } = useLive();
  const [failure, setFailure] = useState<unknown>();
  const signedIn = signIn[environment.id]?.signedIn ?? false;
  const loadBatches = useCallback(
    () => api.call('batches.list', { environmentId: environment.id, limit: 100 }),
    [api, environment.id],
  );
  const batches = useLoad(loadBatches);
  useEvent('batches.changed', (change) => {
    if (change.environmentId === environment.id) batches.reload();
  });
  const left = batches.value ? leftInPreview(batches.value) : undefined;

  async function downloadTemplate() {
    try {
      const template = await api.call('template.example', {});
      downloadText(template.fileName, template.text);
      setFailure(undefined);
    } catch (error) {
      setFailure(error);
    }
  }

  return (
    <section aria-labelledby={headingId} className="panel next-steps">
      <h3 id={headingId}>{title}</h3>
      <p>{why}</p>
      <ol>
        <li>
          {signedIn ? (
            <>Signed in to {environment.name}: done.</>
          ) : environment.clientId ? (
            <>
              <a href={routeHref({ section: 'signin' })}>Sign in</a> to {environment.name}.
            </>
          ) : (
            <>
              Enter the client id CloudRx gave you for {environment.name} in{' '}
              <a href={routeHref({ section: 'settings' })}>Settings</a>, then{' '}
              <a href={routeHref({ section: 'signin' })}>sign in</a>.
            </>
          )}
        </li>
        <li>
          <button type="button" className="secondary" onClick={() => void downloadTemplate()}>
            Download the template
          </button>{' '}
          and fill in one row per prescribed item (the Import screen&apos;s “Column guide” explains each column), or use
          your clinic system&apos;s own CSV or HL7 export.
        </li>
        {left && waitingListedBelow ? (
          <li>{left.sentence} Open one under “Not accepted yet” below to fix what is wrong and accept.</li>
        ) : left ? (
          <li>
            {left.sentence} Open the batch to fix what is wrong and accept:
            <ul>
              {left.batches.map((batch) => (
                <li key={batch.batchId}>
                  <a href={routeHref({ section: 'import', batch: { batchId: batch.batchId } })}>{batch.text}</a>
                </li>
              ))}
            </ul>
          </li>
        ) : (
          <li>
            <a href={routeHref({ section: 'import' })}>Import the file</a>: its orders open in Preview, where you fix
            what is wrong and accept them. Nothing is sent before you accept.
          </li>
        )}
      </ol>
      {failure ? <ErrorMessage error={failure} /> : null}
    </section>
  );
}
