import { useId, useState, type FormEvent } from 'react';
import { ORDER_STATE_NAMES } from '../../../../shared/order-views.js';
import { PATIENT_SURNAME_FILTER_MAX } from '../../../../shared/patient-surname.js';
import { KNOWN_ORDER_STATUSES } from '../../../../shared/status.js';
import { DateField } from '../format/DateField.js';
import { isOrderState, NO_FILTERS, type OrderFilters } from './order-filters.js';
import { ORDER_STATE_TEXT } from './order-states.js';

/** Search and filter: applied on Search (Enter), so typing does not fire a query per key. */
export function OrderFiltersForm({ applied, onApply }: { applied: OrderFilters; onApply: (f: OrderFilters) => void }) {
  const [draft, setDraft] = useState(applied);
  const id = useId();
  const set = <K extends keyof OrderFilters>(key: K, value: OrderFilters[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onApply(draft);
  }

  return (
    <form role="search" aria-label="Filter orders" onSubmit={submit} className="filters">
      <div className="field">
        <label htmlFor={`${id}-clinic`}>Clinic code</label>
        <input
          id={`${id}-clinic`}
          value={draft.clinicCode}
          onChange={(e) => set('clinicCode', e.target.value)}
          maxLength={64}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-order`}>Clinic order id</label>
        <input
          id={`${id}-order`}
          value={draft.clinicOrderId}
          onChange={(e) => set('clinicOrderId', e.target.value)}
          maxLength={64}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-surname`}>Patient surname</label>
        <input
          id={`${id}-surname`}
          value={draft.patientSurname}
          onChange={(e) => set('patientSurname', e.target.value)}
          maxLength={PATIENT_SURNAME_FILTER_MAX}
          autoComplete="off"
          spellCheck={false}
          placeholder="Whole or start"
          aria-describedby={`${id}-surname-hint`}
        />
        <span id={`${id}-surname-hint`} className="visually-hidden">
          The whole surname or its start; case and accents do not matter. Surnames are not shown in the list.
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${id}-state`}>Local state</label>
        <select
          id={`${id}-state`}
          value={draft.state}
          onChange={(e) => set('state', isOrderState(e.target.value) ? e.target.value : '')}
        >
          <option value="">Any</option>
          {ORDER_STATE_NAMES.map((state) => (
            <option key={state} value={state}>
              {ORDER_STATE_TEXT[state].label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-remote`}>Remote status</label>
        <select id={`${id}-remote`} value={draft.remoteStatus} onChange={(e) => set('remoteStatus', e.target.value)}>
          <option value="">Any</option>
          {KNOWN_ORDER_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="field-pair">
        <legend>Accepted between</legend>
        <div className="field">
          <label htmlFor={`${id}-from`}>From</label>
          <DateField id={`${id}-from`} value={draft.createdFrom} onChange={(date) => set('createdFrom', date)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-to`}>To</label>
          <DateField id={`${id}-to`} value={draft.createdTo} onChange={(date) => set('createdTo', date)} />
        </div>
      </fieldset>
      <div className="filter-buttons">
        <button type="submit">Search</button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setDraft(NO_FILTERS);
            onApply(NO_FILTERS);
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
