import { useId, useState, type FormEvent } from 'react';
import type { CallInput } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { OrderLookupResult } from '../../../../shared/service-lookup.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { DateField } from '../format/DateField.js';
import { formatDate } from '../format/format-date.js';
import { plural } from '../format/format-time.js';
import { describeRange, MAX_RANGE_DAYS, SPAN_DAYS_PER_CALL } from './lookup-range.js';
import { lookupStatusText, type LookedFor } from './lookup-status.js';
import { TrackingId } from './TrackingId.js';

type By = CallInput<'orders.lookup'>['query']['by'];

/** Any order on the service, including ones not sent from this app. Reads only: nothing here changes an order. */
export function ServiceLookup({ environment }: { environment: EnvironmentView }) {
  const api = useApi();
  const id = useId();
  const [by, setBy] = useState<By>('pharmacyOrderId');
  const [pharmacyOrderId, setPharmacyOrderId] = useState('');
  const [clinicOrderId, setClinicOrderId] = useState('');
  const [clinicCode, setClinicCode] = useState('');
  const [startDate, setStartDate] = useState('');
  const [endDate, setEndDate] = useState('');
  const [busy, setBusy] = useState(false);
  /** The last answer, with what it asked: the fields may have changed since. */
  const [result, setResult] = useState<{ answer: OrderLookupResult; looked: LookedFor }>();
  const [failure, setFailure] = useState<unknown>();
  const range = describeRange(startDate, endDate);
  const pharmacyNumber = Number(pharmacyOrderId.trim());
  const pharmacyIdValid = Number.isSafeInteger(pharmacyNumber) && pharmacyNumber > 0;
  const badPharmacyId = pharmacyOrderId.trim() !== '' && !pharmacyIdValid;

  function query(): CallInput<'orders.lookup'>['query'] | undefined {
    if (by === 'pharmacyOrderId') return pharmacyIdValid ? { by, pharmacyOrderId: pharmacyNumber } : undefined;
    if (by === 'clinicOrderId') {
      if (!clinicOrderId.trim()) return undefined;
      return {
        by,
        clinicOrderId: clinicOrderId.trim(),
        ...(clinicCode.trim() ? { clinicCode: clinicCode.trim() } : {}),
      };
    }
    return 'problem' in range ? undefined : { by, startDate, endDate };
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const q = query();
    if (!q) return;
    setBusy(true);
    setFailure(undefined);
    try {
      const answer = await api.call('orders.lookup', { environmentId: environment.id, query: q });
      setResult({ answer, looked: { query: q, environmentName: environment.name } });
    } catch (error) {
      setResult(undefined);
      setFailure(error);
    }
    setBusy(false);
  }

  return (
    <section aria-labelledby="lookup-heading" className="panel">
      <h3 id="lookup-heading">Look up on the service</h3>
      <p className="hint">
        Asks {environment.name} directly, so it also finds orders sent by other systems. Nothing is changed.
      </p>
      <form onSubmit={(event) => void submit(event)} className="stack" aria-labelledby="lookup-heading">
        <fieldset className="choice">
          <legend>Look up by</legend>
          {(
            [
              ['pharmacyOrderId', 'Pharmacy order id'],
              ['clinicOrderId', 'Clinic order id'],
              ['dispatchDate', 'Dispatch date range'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="choice-option">
              <input
                type="radio"
                name={`${id}-by`}
                value={value}
                checked={by === value}
                onChange={() => setBy(value)}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        {by === 'pharmacyOrderId' ? (
          <div className="field">
            <label htmlFor={`${id}-pharmacy`}>Pharmacy order id</label>
            <input
              id={`${id}-pharmacy`}
              inputMode="numeric"
              pattern="[0-9]+"
              value={pharmacyOrderId}
              onChange={(event) => setPharmacyOrderId(event.target.value)}
              required
              aria-invalid={badPharmacyId || undefined}
              aria-describedby={`${id}-pharmacy-hint`}
            />
            {/* "Look up" stays disabled until the id is a number: this says why, rather than leave a dead button. */}
            <span id={`${id}-pharmacy-hint`} className={badPharmacyId ? 'hint bad' : 'hint'}>
              {badPharmacyId
                ? 'Not a pharmacy order id: it is a whole number, digits only, such as 100001.'
                : 'The number the service gave the order, shown in its timeline.'}
            </span>
          </div>
        ) : null}
        {by === 'clinicOrderId' ? (
          <div className="field-row">
            <div className="field">
              <label htmlFor={`${id}-clinic-order`}>Clinic order id</label>
              <input
                id={`${id}-clinic-order`}
                value={clinicOrderId}
                onChange={(event) => setClinicOrderId(event.target.value)}
                required
                maxLength={64}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-clinic-code`}>Clinic code (optional)</label>
              <input
                id={`${id}-clinic-code`}
                value={clinicCode}
                onChange={(event) => setClinicCode(event.target.value)}
                maxLength={64}
              />
            </div>
          </div>
        ) : null}
        {by === 'dispatchDate' ? (
          <>
            <div className="field-row">
              <div className="field">
                <label htmlFor={`${id}-start`}>Dispatched from</label>
                <DateField id={`${id}-start`} value={startDate} onChange={setStartDate} required />
              </div>
              <div className="field">
                <label htmlFor={`${id}-end`}>Dispatched to</label>
                <DateField id={`${id}-end`} value={endDate} onChange={setEndDate} required />
              </div>
            </div>
            <p className="hint" id={`${id}-range-hint`}>
              The service answers at most {SPAN_DAYS_PER_CALL} days (start to end) per request, so longer ranges, up to{' '}
              {MAX_RANGE_DAYS} days, are asked in several requests.{' '}
              {'problem' in range
                ? startDate && endDate
                  ? range.problem
                  : ''
                : `This range (${plural(range.days, 'day')}) takes ${plural(range.calls, 'request')}.`}
            </p>
          </>
        ) : null}
        <div>
          <button type="submit" disabled={busy || !query()}>
            {busy ? 'Looking up…' : 'Look up'}
          </button>
        </div>
      </form>
      {failure ? <ErrorMessage error={failure} /> : null}
      {result ? <LookupResults result={result.answer} looked={result.looked} /> : null}
    </section>
  );
}

function LookupResults({ result, looked }: { result: OrderLookupResult; looked: LookedFor }) {
  return (
    <div className="stack">
      {result.error ? <ErrorMessage error={result.error} /> : null}
      <p role="status">{lookupStatusText(result, looked)}</p>
      {result.records.length > 0 ? (
        <table>
          <caption className="visually-hidden">Orders found on the service</caption>
          <thead>
            <tr>
              <th scope="col">Clinic order id</th>
              <th scope="col" className="number">
                Pharmacy id
              </th>
              <th scope="col">Status</th>
              <th scope="col">Dispatch date</th>
              <th scope="col">Tracking id</th>
              <th scope="col">In Rx Batch</th>
            </tr>
          </thead>
          <tbody>
            {result.records.map((record, index) => (
              <tr key={`${record.pharmacyOrderId ?? 'none'}-${index}`}>
                <th scope="row">{record.clinicOrderId ?? '—'}</th>
                <td className="number">{record.pharmacyOrderId ?? '—'}</td>
                <td>
                  {record.orderStatus ?? '—'}
                  {record.cancelReason ? <span className="hint"> ({record.cancelReason})</span> : null}
                </td>
                <td>{formatDate(record.dispatchDate)}</td>
                <td>
                  <TrackingId trackingId={record.trackingId} courierCode={record.courierCode} />
                </td>
                <td>
                  {record.localOrderId !== null ? (
                    <a href={`#/orders/${record.localOrderId}`}>Open order {record.localOrderId}</a>
                  ) : (
                    'Not sent from this app'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
