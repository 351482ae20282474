import type { ConnectionState } from '../../api/connection-state.js';
import { formatRemaining } from '../format/format-time.js';
import { useNow } from '../format/use-now.js';

/**
 * The page lost its link to Rx Batch: said at once, and once (the alert's words stay the same while the page
 * tries again; only the countdown, a timer screen readers do not announce, moves).
 */
export function ConnectionNotice({ connection }: { connection: Extract<ConnectionState, { state: 'lost' }> }) {
  const now = useNow(1000);
  const left = connection.nextTryAt === null ? null : connection.nextTryAt - now;
  return (
    <div className="banner banner-bad" style={{ margin: '0.75rem 1.5rem 0' }}>
      <div role="alert">
        <p className="banner-title">! This page lost its connection to Rx Batch.</p>
        <p>
          {connection.refused
            ? 'Rx Batch no longer accepts this page (it was probably started again): open the address it printed when it started.'
            : 'Orders already accepted are safe. The page reconnects by itself; if it does not, check that Rx Batch is still running.'}
        </p>
      </div>
      {left === null ? null : (
        <p>
          {left <= 500 ? (
            'Reconnecting…'
          ) : (
            <>
              Next try in{' '}
              <span role="timer" aria-label={`Next try in ${formatRemaining(left).words}`}>
                {formatRemaining(left).clock}
              </span>
              .
            </>
          )}
        </p>
      )}
      <details className="banner-details">
        <summary>Technical details</summary>
        <p>
          <code>{connection.message}</code>
        </p>
      </details>
    </div>
  );
}
