import type { DeviceStart } from '../live/live-context.js';
import { CopyButton } from './CopyButton.js';
import { Countdown } from './Countdown.js';
import { QrCode } from './QrCode.js';

interface Props {
  start: DeviceStart;
  intervalSeconds: number;
  slowDown: boolean;
  onCancel: () => void;
}

/**
 * The code to enter, where to enter it (a link: the system browser in the desktop app, a new tab in browser
 * mode), a QR code, time left and what the app is doing meanwhile.
 */
export function DeviceCode({ start, intervalSeconds, slowDown, onCancel }: Props) {
  return (
    <section aria-labelledby="device-code-heading" className="device-code">
      <h3 id="device-code-heading">Enter this code</h3>
      <div className="device-code-row">
        <output className="user-code" aria-label="Sign-in code">
          {start.userCode}
        </output>
        <CopyButton text={start.userCode} label="Copy code" />
      </div>
      <p>
        Go to{' '}
        <a href={start.verificationUri} target="_blank" rel="noopener noreferrer" className="url">
          {start.verificationUri}
        </a>{' '}
        and enter the code
        {start.verificationUriComplete ? (
          <>
            , or{' '}
            <a href={start.verificationUriComplete} target="_blank" rel="noopener noreferrer">
              open the sign-in page with the code filled in
            </a>
          </>
        ) : null}
        .
      </p>
      {start.verificationUriComplete ? <QrCode url={start.verificationUriComplete} /> : null}
      <Countdown expiresAt={start.expiresAt} />
      <p role="status" className="polling">
        {slowDown
          ? `The identity server asked Rx Batch to check less often: checking every ${intervalSeconds} seconds now.`
          : `Waiting for sign-in to be finished in the browser; checking every ${intervalSeconds} ${intervalSeconds === 1 ? 'second' : 'seconds'}.`}
      </p>
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel sign-in
      </button>
    </section>
  );
}
