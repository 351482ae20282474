import { useId, useRef, useState } from 'react';
import type { OrderSource } from '../../../../shared/order-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';

/**
 * "Show source": the order's original CSV records or HL7 message. It is patient data, so it is asked for only when
 * the admin opens it (never with the detail, the list or an event) and forgotten when it is hidden: each showing
 * is asked for again, and the core records each in the Log ("Order source viewed").
 */
export function OrderSourceDisclosure({ orderId }: { orderId: number }) {
  const api = useApi();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [state, setState] = useState<{ source?: OrderSource; error?: unknown; loading: boolean }>({
    loading: false,
  });

  // Answers to an earlier showing that arrive after "Hide source" are dropped.
  const showing = useRef(0);

  function toggle() {
    const next = !open;
    setOpen(next);
    showing.current += 1;
    if (!next) {
      setState({ loading: false });
      return;
    }
    const current = showing.current;
    setState({ loading: true });
    api.call('orders.source', { orderId }).then(
      (source) => {
        if (showing.current === current) setState({ source, loading: false });
      },
      (error: unknown) => {
        if (showing.current === current) setState({ error, loading: false });
      },
    );
  }

  return (
    <div className="order-source">
      <button type="button" className="secondary" aria-expanded={open} aria-controls={`${id}-source`} onClick={toggle}>
        {open ? 'Hide source' : 'Show source'}
      </button>{' '}
      <span className="hint">It holds patient data; each viewing is recorded in the Log.</span>
      <div id={`${id}-source`} hidden={!open}>
        {open && state.loading ? <p role="status">Loading the source…</p> : null}
        {open && state.error ? <ErrorMessage error={state.error} /> : null}
        {open && state.source ? <SourceText source={state.source} /> : null}
      </div>
    </div>
  );
}

function SourceText({ source }: { source: OrderSource }) {
  if (source.format === 'hl7') {
    return (
      <figure className="source-figure">
        <figcaption className="hint">
          {source.message !== null ? `Message ${source.message} of ${source.fileName}` : source.fileName}, a segment a
          line
        </figcaption>
        <pre className="source-text" aria-label="HL7 message">
          {source.segments.join('\n')}
        </pre>
      </figure>
    );
  }
  return (
    <table className="source-table">
      <caption className="hint">Lines of {source.fileName}</caption>
      <thead>
        <tr>
          <th scope="col" className="number">
            Line
          </th>
          <th scope="col">Text</th>
        </tr>
      </thead>
      <tbody>
        {source.header ? (
          <tr className="source-header">
            <th scope="row" className="number">
              {source.header.line ?? 'header'}
            </th>
            <td>
              <pre className="source-text">{source.header.text}</pre>
            </td>
          </tr>
        ) : null}
        {source.records.map((record, index) => (
          <tr key={`${record.line ?? 'record'}-${index}`}>
            <th scope="row" className="number">
              {record.line ?? '—'}
            </th>
            <td>
              <pre className="source-text">{record.text}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
