import { useEffect, useId, useRef, useState, type FormEvent, type InputHTMLAttributes, type ReactNode } from 'react';
import { ORDER_SERVICE_SCOPES, type EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { GRANT_LABELS } from '../environments/environment-labels.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { fromForm, toForm, type FormErrors, type ProfileForm } from './profile-form.js';

interface Props {
  /** Absent: a new environment. */
  environment: EnvironmentView | undefined;
  onCancel: () => void;
  onSaved: (environment: EnvironmentView) => void;
}

/** Edits one API profile (or adds one): where the service is, how to sign in, its pace and its code lists. */
export function EnvironmentForm({ environment, onCancel, onSaved }: Props) {
  const api = useApi();
  const id = useId();
  const [form, setForm] = useState<ProfileForm>(() => toForm(environment));
  const [errors, setErrors] = useState<FormErrors>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  /** Counts the saves refused for their fields, so each one puts the keyboard on the first field to change. */
  const [refused, setRefused] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    // A field marked invalid, else the scopes' first box (a fieldset takes no aria-invalid).
    if (refused > 0)
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], fieldset[aria-describedby] input')?.focus();
  }, [refused]);
  const adding = environment === undefined;
  const appOwned = environment?.kind === 'local-sandbox';
  // The address, identity server, client or sign-in method is the environment's identity (docs/security.md).
  const repointing =
    environment !== undefined &&
    !appOwned &&
    (form.apiBaseUrl.trim() !== environment.apiBaseUrl ||
      form.issuer.trim() !== environment.issuer ||
      form.clientId.trim() !== environment.clientId ||
      form.grant !== environment.grant);
  const set = <K extends keyof ProfileForm>(key: K, value: ProfileForm[K]) => setForm((f) => ({ ...f, [key]: value }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const checked = fromForm(form);
    if (!checked.ok) {
      setErrors(checked.errors);
      setRefused((n) => n + 1);
      return;
    }
    setErrors({});
    setBusy(true);
    setFailure(undefined);
    try {
      onSaved(await api.call('environments.save', { environment: checked.profile, create: adding }));
    } catch (error) {
      setFailure(error);
      setBusy(false);
    }
  }

  /** A labelled input with its error beside it (text and aria-invalid, not colour alone). */
  function field(key: keyof ProfileForm, label: string, input: (props: FieldProps) => ReactNode, hint?: string) {
    const inputId = `${id}-${key}`;
    const error = errors[key];
    const describedBy = [hint ? `${inputId}-hint` : '', error ? `${inputId}-error` : ''].filter(Boolean).join(' ');
    return (
      <div className="field">
        <label htmlFor={inputId}>{label}</label>
        {input({
          id: inputId,
          'aria-invalid': error ? true : undefined,
          'aria-describedby': describedBy || undefined,
        })}
        {hint ? (
          <span id={`${inputId}-hint`} className="hint">
            {hint}
          </span>
        ) : null}
        {error ? (
          <span id={`${inputId}-error`} className="field-error">
            ! {error}
          </span>
        ) : null}
      </div>
    );
  }

  // Render helpers (called, not mounted as components): a text input or a text area bound to one form key.
  const text =
    (key: TextKey, extra: InputHTMLAttributes<HTMLInputElement> = {}) =>
    (props: FieldProps) => <input {...props} {...extra} value={form[key]} onChange={(e) => set(key, e.target.value)} />;
  const area = (key: TextKey) => (props: FieldProps) => (
    <textarea {...props} rows={4} value={form[key]} onChange={(e) => set(key, e.target.value)} />
  );

  return (
    <form
      ref={formRef}
      onSubmit={(event) => void submit(event)}
      className="profile-form"
      aria-labelledby={`${id}-heading`}
      noValidate
    >
      <h4 id={`${id}-heading`}>{adding ? 'Add an environment' : `Edit ${environment.name}`}</h4>
      {appOwned ? (
        <p className="hint">
          The local sandbox runs inside Rx Batch: its addresses, client and sign-in are set each time it starts.
        </p>
      ) : null}
      <fieldset>
        <legend>Service</legend>
        {adding
          ? field(
              'id',
              'Id',
              text('id', { maxLength: 40 }),
              'Lower-case letters, digits and dashes; cannot change later.',
            )
          : null}
        {field('name', 'Name', text('name', { maxLength: 80 }))}
        {field('apiBaseUrl', 'API base URL', text('apiBaseUrl', { readOnly: appOwned, type: 'url' }))}
        {field(
          'createWithClinicVersion',
          'Create-with-clinic path version',
          (props) => (
            <select
              {...props}
              value={form.createWithClinicVersion}
              onChange={(e) => set('createWithClinicVersion', e.target.value === 'v2' ? 'v2' : 'v1')}
            >
              <option value="v1">v1</option>
              <option value="v2">v2</option>
            </select>
          ),
          'Where orders sent with their clinic’s details go: /api/v1/ or /api/v2/Order/create-with-clinic. The public pages list both; use the one your service answers.',
        )}
        {field(
          'requestTimeoutSeconds',
          'Request timeout (seconds)',
          text('requestTimeoutSeconds', { inputMode: 'numeric' }),
        )}
      </fieldset>
      <fieldset>
        <legend>Sign-in</legend>
        {field('issuer', 'Identity server (issuer)', text('issuer', { readOnly: appOwned, type: 'url' }))}
        {field(
          'clientId',
          'Client id',
          text('clientId', { readOnly: appOwned, maxLength: 200 }),
          'The id CloudRx issued you.',
        )}
        {field('grant', 'Sign-in method', (props) => (
          <select
            {...props}
            value={form.grant}
            disabled={appOwned}
            onChange={(e) => set('grant', e.target.value === 'client_credentials' ? 'client_credentials' : 'device')}
          >
            <option value="device">{GRANT_LABELS.device}</option>
            <option value="client_credentials">{GRANT_LABELS.client_credentials}</option>
          </select>
        ))}
        <fieldset className="choice" aria-describedby={errors.scopes ? `${id}-scopes-error` : undefined}>
          <legend>Scopes</legend>
          {ORDER_SERVICE_SCOPES.map((scope) => (
            <label key={scope} className="choice-option">
              <input
                type="checkbox"
                checked={form.scopes.includes(scope)}
                onChange={(event) =>
                  set('scopes', event.target.checked ? [...form.scopes, scope] : form.scopes.filter((s) => s !== scope))
                }
              />{' '}
              <code>{scope}</code>
            </label>
          ))}
          {errors.scopes ? (
            <span id={`${id}-scopes-error`} className="field-error">
              ! {errors.scopes}
            </span>
          ) : null}
        </fieldset>
      </fieldset>
      <fieldset>
        <legend>Pace</legend>
        {field('concurrency', 'Orders in flight at once', text('concurrency', { inputMode: 'numeric' }))}
        {field('ratePerSecond', 'Requests per second', text('ratePerSecond', { inputMode: 'decimal' }))}
        {field(
          'pollIntervalSeconds',
          'Status poll interval (seconds)',
          text('pollIntervalSeconds', { inputMode: 'numeric' }),
          'The shortest wait between status checks of an open order; quiet orders are checked less often.',
        )}
        <p className="hint">
          Pace changes apply as soon as you save: requests already on their way finish first, then sending and status
          checks go at the new pace.
        </p>
      </fieldset>
      <fieldset>
        <legend>Code lists (one per line)</legend>
        <div className="field-grid">
          {field('titles', 'Titles', area('titles'))}
          {field('genders', 'Genders', area('genders'))}
          {field('paymentTypes', 'Payment types', area('paymentTypes'))}
          {field('courierCodes', 'Courier codes', area('courierCodes'))}
          {field('currencyCodes', 'Currency codes', area('currencyCodes'))}
          {field('v2Title', 'v2 title numbers', area('v2Title'), 'Text = number, e.g. Mr = 1')}
          {field('v2PaymentType', 'v2 payment type numbers', area('v2PaymentType'), 'Text = number')}
          {field('v2CourierCode', 'v2 courier numbers', area('v2CourierCode'), 'Text = number')}
        </div>
      </fieldset>
      {Object.keys(errors).length > 0 ? (
        <p role="alert" className="field-error">
          ! Some fields need a change before saving: see the messages beside them.
        </p>
      ) : null}
      {repointing ? (
        <p role="note" className="message message-warning">
          Saving changes where {environment.name} connects: it will be signed out and its saved sign-in and client
          secret deleted, so nothing of them reaches the new address. You will sign in again.
        </p>
      ) : null}
      {failure ? <ErrorMessage error={failure} /> : null}
      <div className="button-row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : adding ? 'Save new environment' : 'Save changes'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The form's free-text fields. */
type TextKey = Exclude<keyof ProfileForm, 'kind' | 'grant' | 'createWithClinicVersion' | 'scopes'>;

interface FieldProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}
