import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { IntakeChannelView } from '../../../../shared/intake-contract.js';
import type { SenderBindingView } from '../../../../shared/sender-binding-contract.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { entriesOf, listenerReach, unboundText } from './binding-text.js';

/**
 * Who may send as each HL7 profile's sender (docs/security.md, finding 27), beside the listener it is about: the
 * addresses the sender may connect from and the clinics it may act for, or a plain warning that it is not bound;
 * set and cleared here as `rx-batch profile add-hl7 --peer/--clinic` does (the core checks them with the CLI's
 * rules). A listener that takes connections from other computers makes an unbound sender the risky case; whether it
 * does is its address and its allow-list together (listenerReach).
 */
export function SenderBindings({
  listeners,
  port,
}: {
  listeners: readonly Pick<IntakeChannelView, 'address' | 'allowList'>[];
  port: string;
}) {
  const api = useApi();
  const [bindings, setBindings] = useState<SenderBindingView[]>();
  const [loadError, setLoadError] = useState<unknown>();
  const [editing, setEditing] = useState<string>();
  // Closing a form puts the keyboard back on its profile's "Edit binding", which takes the form's place.
  const [closed, setClosed] = useState<string>();

  useEffect(() => {
    let current = true;
    api.call('profiles.bindings', {}).then(
      (answer) => {
        if (current) setBindings(answer);
      },
      (error: unknown) => {
        if (current) setLoadError(error);
      },
    );
    return () => {
      current = false;
    };
  }, [api]);

  const reaches = listeners.map((listener) => ({ address: listener.address, ...listenerReach(listener) }));
  const open = reaches.filter((reach) => reach.otherComputers).map((reach) => reach.address);
  const unbound = bindings?.filter((binding) => unboundText(binding) !== undefined) ?? [];
  return (
    <section aria-labelledby="intake-bindings-heading" className="panel">
      <h3 id="intake-bindings-heading">Who may send as each sender</h3>
      {listeners.length === 0 ? (
        <p>
          Not listening now. Started here, the listener takes connections from this computer only (127.0.0.1:
          {port || '…'}); <code>rx-batch serve --mllp 0.0.0.0:{port || 'PORT'}</code> takes them from other computers
          (with <code>--allow ADDRESS</code>, only from the addresses given), and then any of them may send as a sender
          that is not bound.
        </p>
      ) : (
        reaches.map((reach) => (
          <p key={reach.address} className={reach.open ? 'message message-warning' : undefined}>
            {reach.text}
          </p>
        ))
      )}
      {open.length > 0 && unbound.length > 0 ? (
        <p role="alert" className="message message-warning">
          {unbound.length === 1 ? '1 sender is' : `${unbound.length} senders are`} not fully bound while{' '}
          {open.join(', ')} takes connections from other computers: bind each below to the addresses its system sends
          from and the clinics it orders for.
        </p>
      ) : null}
      <p className="hint">
        A clinic system is known by the sender its messages name (MSH-3^MSH-4), which any system could write. Binding an
        HL7 profile&apos;s sender refuses its messages from other addresses, and holds its orders and cancels for other
        clinics for review.
      </p>

      {loadError ? <ErrorMessage error={loadError} /> : null}
      {!bindings && !loadError ? <p role="status">Reading the profiles…</p> : null}
      {bindings?.length === 0 ? (
        <p className="hint">No HL7 profiles yet: save one from an HL7 file&apos;s mapping on Import.</p>
      ) : null}
      {bindings?.map((binding) =>
        editing === binding.profile ? (
          <BindingForm
            key={binding.profile}
            binding={binding}
            onDone={(saved) => {
              if (saved) setBindings((all) => all?.map((kept) => (kept.profile === saved.profile ? saved : kept)));
              setEditing(undefined);
              setClosed(binding.profile);
            }}
          />
        ) : (
          <BindingFacts
            key={binding.profile}
            binding={binding}
            risky={open.length > 0}
            focusOnMount={closed === binding.profile}
            onEdit={() => {
              setEditing(binding.profile);
              setClosed(undefined);
            }}
          />
        ),
      )}
    </section>
  );
}

function BindingFacts({
  binding,
  risky,
  focusOnMount,
  onEdit,
}: {
  binding: SenderBindingView;
  risky: boolean;
  focusOnMount: boolean;
  onEdit: () => void;
}) {
  const headingId = useId();
  const warning = unboundText(binding);
  const edit = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusOnMount) edit.current?.focus();
  }, [focusOnMount]);
  return (
    <article aria-labelledby={headingId} className="intake-binding">
      <h4 id={headingId}>
        {binding.profile}{' '}
        <span className="hint">
          (<code>{binding.sender}</code>, {binding.messageType})
        </span>
      </h4>
      <dl className="intake-facts">
        <div>
          <dt>May connect from</dt>
          <dd>{binding.peers ? binding.peers.join(', ') : 'Any computer'}</dd>
        </div>
        <div>
          <dt>May order and cancel for</dt>
          <dd>{binding.clinics ? binding.clinics.join(', ') : 'Any clinic'}</dd>
        </div>
      </dl>
      {warning ? <p className={risky ? 'bad' : 'hint'}>{warning}</p> : null}
      <button
        type="button"
        className="secondary"
        ref={edit}
        onClick={onEdit}
        aria-label={`Edit binding of ${binding.profile}`}
      >
        Edit binding
      </button>
    </article>
  );
}

/** The two lists, one entry a line; an empty list clears that half of the binding. */
function BindingForm({
  binding,
  onDone,
}: {
  binding: SenderBindingView;
  onDone: (saved: SenderBindingView | undefined) => void;
}) {
  const api = useApi();
  const id = useId();
  const [peers, setPeers] = useState(() => (binding.peers ?? []).join('\n'));
  const [clinics, setClinics] = useState(() => (binding.clinics ?? []).join('\n'));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const first = useRef<HTMLTextAreaElement>(null);
  useEffect(() => first.current?.focus(), []);

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      onDone(
        await api.call('profiles.setBinding', {
          profile: binding.profile,
          peers: entriesOf(peers),
          clinics: entriesOf(clinics),
        }),
      );
    } catch (error) {
      setFailure(error);
      setBusy(false);
    }
  }

  return (
    <form
      onSubmit={(event) => void save(event)}
      aria-label={`Binding of ${binding.profile}`}
      className="stack intake-binding"
    >
      <h4>
        {binding.profile}{' '}
        <span className="hint">
          (<code>{binding.sender}</code>, {binding.messageType})
        </span>
      </h4>
      <div className="field">
        <label htmlFor={`${id}-peers`}>Addresses it may connect from</label>
        <textarea
          id={`${id}-peers`}
          ref={first}
          rows={3}
          value={peers}
          onChange={(event) => setPeers(event.target.value)}
          spellCheck={false}
          aria-describedby={`${id}-peers-hint`}
        />
        <span id={`${id}-peers-hint`} className="hint">
          One a line: an IP address (10.20.1.5, fd00::7) or a block (10.20.0.0/16). Empty: any computer.
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${id}-clinics`}>Clinic codes it may order and cancel for</label>
        <textarea
          id={`${id}-clinics`}
          rows={3}
          value={clinics}
          onChange={(event) => setClinics(event.target.value)}
          spellCheck={false}
          aria-describedby={`${id}-clinics-hint`}
        />
        <span id={`${id}-clinics-hint`} className="hint">
          One a line, as its orders give them (ORC-21, else MSH-4). Empty: any clinic.
        </span>
      </div>
      {failure ? <ErrorMessage error={failure} /> : null}
      <div className="button-row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save binding'}
        </button>
        <button type="button" className="secondary" onClick={() => onDone(undefined)} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
