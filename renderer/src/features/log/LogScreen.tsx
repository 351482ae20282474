import {
  Fragment,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type FormEvent,
  type ReactNode,
} from 'react';
import type { CallInput } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { LogFilter } from '../../../../shared/log-contract.js';
import type { AuditEntryView } from '../../../../shared/log-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { NextSteps } from '../workspace/NextSteps.js';
import { formatDateTime } from '../format/format-date.js';
import { plural } from '../format/format-time.js';
import { useLive } from '../live/live-context.js';
import { ACTION_KINDS, actionLabel, detailsLine } from './audit-labels.js';
import { ChainStatus } from './ChainStatus.js';
import { LogExport } from './LogExport.js';

const PAGE = 200;

interface LogFilters {
  search: string;
  /** Exact: the entries of the orders with this clinic order id, found through indexes at any size. */
  clinicOrderId: string;
  kind: string;
  environmentId: string;
}

/** The filters as the contract takes them; undefined when none is set (the whole log). */
function toLogFilter(filters: LogFilters): LogFilter | undefined {
  const filter: LogFilter = {};
  if (filters.search.trim()) filter.search = filters.search.trim();
  if (filters.clinicOrderId.trim()) filter.clinicOrderId = filters.clinicOrderId.trim();
  if (filters.kind) filter.action = filters.kind;
  if (filters.environmentId) filter.environmentId = filters.environmentId;
  return Object.keys(filter).length > 0 ? filter : undefined;
}

const ACTOR_LABELS: Record<AuditEntryView['actor'], string> = { user: 'You', submitter: 'Submitter', system: 'System' };

/**
 * An action name with places to break after its dots (`environment.` then `identity-changed`), so the What column can be
 * narrow at 1024 px; copied, it is the name whole (a <wbr> adds no character).
 */
function breakAtDots(action: string): ReactNode[] {
  const parts = action.split('.');
  return parts.flatMap((part, index) => [
    ...(index === 0 ? [] : [<wbr key={`b${index}`} />]),
    <span key={index}>{index < parts.length - 1 ? `${part}.` : part}</span>,
  ]);
}

/** The audit log, newest first: filters, search, chain verification and export. */
export function LogScreen({ environment }: { environment: EnvironmentView }) {
  const api = useApi();
  const { environments } = useLive();
  const id = useId();
  const [draft, setDraft] = useState<LogFilters>({ search: '', clinicOrderId: '', kind: '', environmentId: '' });
  const [filters, setFilters] = useState<LogFilters>(draft);
  const [entries, setEntries] = useState<AuditEntryView[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [loading, setLoading] = useState(true);
  const [searching, setSearching] = useState<{ found: number }>();
  const [failure, setFailure] = useState<unknown>();
  const generation = useRef(0);

  const filter = useMemo(() => toLogFilter(filters), [filters]);
  // A search no index answers comes back a window of the log at a time (`partial`): the next window is asked for
  // at once until the page is full or the log ends, showing what was found so far; "Stop" leaves the rest for
  // "Load older entries".
  const load = useCallback(
    (beforeSeq: number | undefined) => {
      const mine = ++generation.current;
      const fetchPage = (before: number | undefined, append: boolean, found: number) => {
        const input: CallInput<'log.list'> = { limit: PAGE, ...filter };
        if (before !== undefined) input.beforeSeq = before;
        api.call('log.list', input).then(
          (page) => {
            if (mine !== generation.current) return;
            setEntries((current) => (append ? [...current, ...page.entries] : page.entries));
            setNext(page.nextBeforeSeq);
            setFailure(undefined);
            const total = found + page.entries.length;
            if (page.partial && page.nextBeforeSeq !== null && total < PAGE) {
              setSearching({ found: total });
              fetchPage(page.nextBeforeSeq, true, total);
              return;
            }
            setSearching(undefined);
            setLoading(false);
          },
          (error: unknown) => {
            if (mine !== generation.current) return;
            setFailure(error);
            setSearching(undefined);
            setLoading(false);
          },
        );
      };
      fetchPage(beforeSeq, beforeSeq !== undefined, 0);
    },
    [api, filter],
  );

  function stopSearching() {
    generation.current += 1;
    setSearching(undefined);
    setLoading(false);
  }

  useEffect(() => load(undefined), [load]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setLoading(true);
    setFilters(draft);
  }

  return (
    <section aria-labelledby="screen-heading" className="screen">
      <h2 id="screen-heading" tabIndex={-1}>
        Log
      </h2>
      <ChainStatus />
      <section aria-labelledby="entries-heading" className="panel">
        <h3 id="entries-heading">Entries</h3>
        <form role="search" aria-label="Filter the log" onSubmit={submit} className="filters">
          <div className="field">
            <label htmlFor={`${id}-clinic-order`}>Clinic order id</label>
            <input
              id={`${id}-clinic-order`}
              type="search"
              value={draft.clinicOrderId}
              onChange={(event) => setDraft((d) => ({ ...d, clinicOrderId: event.target.value }))}
              maxLength={64}
              spellCheck={false}
              autoComplete="off"
              placeholder="The whole id, exactly"
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-search`}>Search</label>
            <input
              id={`${id}-search`}
              type="search"
              value={draft.search}
              onChange={(event) => setDraft((d) => ({ ...d, search: event.target.value }))}
              maxLength={100}
              placeholder="Part of an id, clinic, file name, message…"
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-kind`}>Kind</label>
            <select
              id={`${id}-kind`}
              value={draft.kind}
              onChange={(event) => setDraft((d) => ({ ...d, kind: event.target.value }))}
            >
              {ACTION_KINDS.map((kind) => (
                <option key={kind.prefix} value={kind.prefix}>
                  {kind.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-environment`}>Environment</label>
            <select
              id={`${id}-environment`}
              value={draft.environmentId}
              onChange={(event) => setDraft((d) => ({ ...d, environmentId: event.target.value }))}
            >
              <option value="">All</option>
              {environments.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name}
                  {candidate.id === environment.id ? ' (selected)' : ''}
                </option>
              ))}
            </select>
          </div>
          <div className="filter-buttons">
            <button type="submit">Search</button>
          </div>
        </form>
        {failure ? <ErrorMessage error={failure} /> : null}
        <p role="status" className="hint">
          {searching
            ? `Searching older entries… ${plural(searching.found, 'match', 'matches')} so far.`
            : loading
              ? 'Loading entries…'
              : `${plural(entries.length, 'entry', 'entries')} shown${next ? ', older ones below' : ''}.`}
        </p>
        {searching ? (
          <button type="button" className="secondary" onClick={stopSearching}>
            Stop searching
          </button>
        ) : null}
        {!loading && !failure && !filter && entries.every((entry) => entry.actor === 'system') ? (
          <NextSteps
            environment={environment}
            title="Nothing done here yet"
            why={
              entries.length === 0
                ? 'Every import, accept, send, cancel and sign-in is recorded here, in a chain that shows any later change.'
                : "So far only Rx Batch's own steps are logged (starting its sandbox, signing in to it). Every import, " +
                  'accept, send, cancel and sign-in of yours will be recorded here too.'
            }
          />
        ) : null}
        {!loading && !failure && filter && entries.length === 0 ? (
          <p className="hint">
            {next === null
              ? 'No entries match these filters. Clear them to see the whole log.'
              : 'No entries match these filters in the part of the log searched so far.'}
          </p>
        ) : null}
        {entries.length > 0 ? (
          <div className="table-scroll log-scroll" tabIndex={0} aria-label="Log entries, scrollable">
            <table>
              <caption className="visually-hidden">Log entries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col" className="number">
                    #
                  </th>
                  <th scope="col">Time</th>
                  <th scope="col">By</th>
                  <th scope="col">What</th>
                  <th scope="col">Order</th>
                  <th scope="col">Environment</th>
                  <th scope="col" className="details">
                    Details
                  </th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry) => {
                  const details = detailsLine(entry.details);
                  return (
                    <Fragment key={entry.seq}>
                      <tr className={details ? 'with-details' : undefined}>
                        <td className="number">{entry.seq}</td>
                        <td className="log-time">
                          <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                        </td>
                        <td>{ACTOR_LABELS[entry.actor]}</td>
                        <th scope="row">
                          {actionLabel(entry.action)}
                          <code className="hint log-action">{breakAtDots(entry.action)}</code>
                        </th>
                        <td className="log-order">
                          {entry.orderId !== null ? (
                            <a href={`#/orders/${entry.orderId}`}>{entry.clinicOrderId ?? `Order ${entry.orderId}`}</a>
                          ) : (
                            (entry.clinicOrderId ?? '—')
                          )}
                          {entry.clinicCode ? (
                            <>
                              {' '}
                              <span className="hint">({entry.clinicCode})</span>
                            </>
                          ) : null}
                        </td>
                        <td className="log-environment">
                          {entry.environmentId === null
                            ? '—'
                            : (environments.find((candidate) => candidate.id === entry.environmentId)?.name ??
                              entry.environmentId)}
                        </td>
                        <td className="details">{details}</td>
                      </tr>
                      {details ? (
                        // Where the table is too narrow for a Details column (styles.css), the details show on a line
                        // of their own below the entry, instead of off-screen to the right.
                        <tr className="log-details-row">
                          <td colSpan={6}>
                            <span className="log-details-label">Details:</span> {details}
                          </td>
                        </tr>
                      ) : null}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : null}
        {next !== null && !searching ? (
          <button type="button" className="secondary" onClick={() => load(next)}>
            Load older entries
          </button>
        ) : null}
      </section>
      <LogExport
        filter={filter}
        described={
          filter
            ? 'Exports the entries the filters above select (all of them, not only those shown).'
            : 'Exports the whole log: set filters above to export only what they select.'
        }
      />
    </section>
  );
}
