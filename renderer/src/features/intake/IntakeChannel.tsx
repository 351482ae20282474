import type { IntakeChannelView } from '../../../../shared/intake-contract.js';
import { formatTime } from '../format/format-date.js';
import { plural } from '../format/format-time.js';
import { routeHref } from '../workspace/route.js';
import { PerMinuteChart } from './PerMinuteChart.js';
import { channelTitle, OUTCOME_TEXT, STATE_TEXT } from './intake-text.js';

/** One listener or watched folder: its state, who is connected, what arrived, the last problems, the batches fed. */
export function IntakeChannel({ channel, index }: { channel: IntakeChannelView; index: number }) {
  const headingId = `intake-channel-${index}`;
  const unit = channel.kind === 'mllp' ? 'message' : 'file';
  const tone = channel.state === 'failed' ? 'bad' : channel.state === 'stopped' ? 'hint' : 'good';
  return (
    <section aria-labelledby={headingId} className="panel intake-channel">
      <h3 id={headingId}>{channelTitle(channel)}</h3>
      <dl className="intake-facts">
        <div>
          <dt>State</dt>
          <dd className={tone}>{STATE_TEXT[channel.state]}</dd>
        </div>
        {channel.kind === 'mllp' ? (
          <div>
            <dt>Connected</dt>
            <dd>
              {channel.connections === 0
                ? 'No one'
                : `${channel.connections} ${channel.connections === 1 ? 'connection' : 'connections'} from ${channel.peers.join(', ')}`}
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Received since start</dt>
          <dd>{plural(channel.received, unit)}</dd>
        </div>
      </dl>
      {channel.message ? <p className="bad">{channel.message}</p> : null}
      {channel.access ? (
        <p className="message message-warning" role="note">
          Other accounts on this computer: {channel.access}.
        </p>
      ) : null}
      <PerMinuteChart series={channel.perMinute} unit={unit} />

      <h4>Last problems</h4>
      {channel.problems.length === 0 ? (
        <p className="hint">None.</p>
      ) : (
        // Up to twenty problems scroll within the panel: reachable by keyboard as the other lists are.
        <div className="table-scroll" tabIndex={0} aria-label={`Last problems of ${channelTitle(channel)}, scrollable`}>
          <table className="intake-problems">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">{channel.kind === 'mllp' ? 'Control id' : 'File'}</th>
                {channel.kind === 'mllp' ? <th scope="col">Peer</th> : null}
                <th scope="col">Outcome</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {channel.problems.map((problem, i) => (
                <tr key={`${problem.at}-${i}`}>
                  <td className="intake-nowrap">
                    <time dateTime={problem.at}>{formatTime(problem.at)}</time>
                  </td>
                  <td className="intake-nowrap">{problem.controlId || '—'}</td>
                  {channel.kind === 'mllp' ? <td>{problem.peer || '—'}</td> : null}
                  <td>{OUTCOME_TEXT[problem.outcome]}</td>
                  <td>
                    {problem.reason}
                    {problem.batchId !== null ? (
                      <>
                        {' '}
                        <a
                          className="inline-link"
                          href={routeHref({ section: 'import', batch: { batchId: problem.batchId } })}
                        >
                          Open batch {problem.batchId}
                        </a>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h4>Batches fed</h4>
      {channel.batches.length === 0 ? (
        <p className="hint">None yet. Messages held for review gather in one batch per sender per day.</p>
      ) : (
        <ul className="intake-batches">
          {channel.batches.map((batch) => (
            <li key={batch.batchId}>
              <a href={routeHref({ section: 'import', batch: { batchId: batch.batchId } })}>
                Batch {batch.batchId}: {batch.name}
              </a>{' '}
              <span className="hint">({plural(batch.count, unit)})</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
