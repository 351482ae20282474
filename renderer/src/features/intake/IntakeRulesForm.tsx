import { useEffect, useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { IntakeRulesView } from '../../../../shared/intake-contract.js';
import {
  senderKeyProblem,
  SENDER_RULES_MAX,
  type IntakeModeView,
  type IntakeRuleSetView,
} from '../../../../shared/intake-rules.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { formatDateTime } from '../format/format-date.js';
import { MODE_TEXT, sameRules } from './intake-text.js';

/**
 * The environment's staging rules (issue #17), edited and saved here: what happens to orders from every sender
 * without a rule of its own, and a list of senders with theirs (add, change, remove). Saved for the environment,
 * they are what the next start on this screen and `rx-batch serve` use; a running intake keeps the rules it
 * started with. Give it `key={environment.id}`.
 */
export function IntakeRulesForm({
  environment,
  runningHere,
}: {
  environment: EnvironmentView;
  /** The intake runs now for this environment (it keeps the rules it started with). */
  runningHere: boolean;
}) {
  const api = useApi();
  const id = useId();
  const [saved, setSaved] = useState<IntakeRulesView>();
  const [rules, setRules] = useState<IntakeRuleSetView>();
  const [loadError, setLoadError] = useState<unknown>();
  const [newSender, setNewSender] = useState('');
  const [newMode, setNewMode] = useState<IntakeModeView>('send');
  const [addProblem, setAddProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const [justSaved, setJustSaved] = useState(false);

  useEffect(() => {
    // Mounted per environment (keyed by its id), so nothing of another environment's rules is left to clear.
    let current = true;
    api.call('intake.rules', { environmentId: environment.id }).then(
      (answer) => {
        if (!current) return;
        setSaved(answer);
        setRules(answer.rules);
      },
      (error: unknown) => {
        if (current) setLoadError(error);
      },
    );
    return () => {
      current = false;
    };
  }, [api, environment.id]);

  if (loadError) return <ErrorMessage error={loadError} />;
  if (!saved || !rules) return <p role="status">Reading the rules…</p>;

  const changed = !sameRules(rules, saved.rules);
  const edit = (next: IntakeRuleSetView) => {
    setRules(next);
    setJustSaved(false);
    setFailure(undefined);
  };

  function add() {
    const sender = newSender.trim();
    const problem =
      senderKeyProblem(sender) ??
      (rules!.senders.some((rule) => rule.sender === sender)
        ? `"${sender}" has a rule already: change it in the list.`
        : rules!.senders.length >= SENDER_RULES_MAX
          ? `At most ${SENDER_RULES_MAX} senders can have a rule of their own.`
          : undefined);
    setAddProblem(problem);
    if (problem) return;
    edit({ ...rules!, senders: [...rules!.senders, { sender, onArrival: newMode }] });
    setNewSender('');
  }

  function addOnEnter(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    add();
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      const answer = await api.call('intake.saveRules', { environmentId: environment.id, rules: rules! });
      setSaved(answer);
      setRules(answer.rules);
      setJustSaved(true);
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  return (
    <form onSubmit={(event) => void save(event)} aria-label="Intake rules" className="stack">
      <fieldset className="field-pair">
        <legend>Every sender without a rule of its own</legend>
        {(['hold', 'send'] as const).map((mode) => (
          <label key={mode} className="choice-option">
            <input
              type="radio"
              name={`${id}-default`}
              checked={rules.onArrival === mode}
              onChange={() => edit({ ...rules, onArrival: mode })}
            />{' '}
            {MODE_TEXT[mode]}
          </label>
        ))}
      </fieldset>

      <h4 id={`${id}-senders`}>Senders with a rule of their own</h4>
      {rules.senders.length === 0 ? (
        <p className="hint">None: every sender follows the rule above.</p>
      ) : (
        <div className="table-scroll">
          <table className="intake-rules" aria-labelledby={`${id}-senders`}>
            <thead>
              <tr>
                <th scope="col">Sender</th>
                <th scope="col">When its orders arrive</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.senders.map((rule, index) => (
                <tr key={rule.sender}>
                  <th scope="row">
                    <code>{rule.sender}</code>
                  </th>
                  <td>
                    <select
                      aria-label={`Rule for ${rule.sender}`}
                      value={rule.onArrival}
                      onChange={(event) =>
                        edit({
                          ...rules,
                          senders: rules.senders.map((kept, at) =>
                            at === index ? { ...kept, onArrival: event.target.value as IntakeModeView } : kept,
                          ),
                        })
                      }
                    >
                      <option value="hold">{MODE_TEXT.hold}</option>
                      <option value="send">{MODE_TEXT.send}</option>
                    </select>
                  </td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Remove ${rule.sender}`}
                      onClick={() => edit({ ...rules, senders: rules.senders.filter((_, at) => at !== index) })}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <div className="field-row intake-rule-add">
        <div className="field">
          <label htmlFor={`${id}-sender`}>Sender</label>
          <input
            id={`${id}-sender`}
            value={newSender}
            onChange={(event) => {
              setNewSender(event.target.value);
              setAddProblem(undefined);
            }}
            onKeyDown={addOnEnter}
            size={28}
            maxLength={120}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={addProblem !== undefined}
            aria-describedby={`${id}-sender-hint${addProblem ? ` ${id}-sender-problem` : ''}`}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-sender-mode`}>Its rule</label>
          <select
            id={`${id}-sender-mode`}
            value={newMode}
            onChange={(event) => setNewMode(event.target.value as IntakeModeView)}
          >
            <option value="send">{MODE_TEXT.send}</option>
            <option value="hold">{MODE_TEXT.hold}</option>
          </select>
        </div>
        <button type="button" className="secondary" onClick={add}>
          Add sender
        </button>
      </div>
      <p id={`${id}-sender-hint`} className="hint">
        As the clinic system writes it in its messages: the sending application (MSH-3) and facility (MSH-4) as
        APP^FACILITY, e.g. EPR-7^CLINIC-H, or the application alone for all its facilities. Capitals count. Files in a
        watched folder follow the rule above.
      </p>
      {addProblem ? (
        <p id={`${id}-sender-problem`} role="alert" className="message message-error">
          {addProblem}
        </p>
      ) : null}

      {failure ? <ErrorMessage error={failure} /> : null}
      <div className="button-row">
        <button type="submit" disabled={busy || !changed}>
          {busy ? 'Saving…' : 'Save rules'}
        </button>
        {changed ? (
          <button type="button" className="secondary" onClick={() => edit(saved.rules)} disabled={busy}>
            Undo changes
          </button>
        ) : null}
      </div>
      <p role="status" className="hint">
        {changed
          ? 'Not saved yet.'
          : justSaved
            ? `Saved for ${environment.name}. ${runningHere ? 'The intake running now keeps the rules it started with: stop and start it to use these.' : 'The next start uses them.'}`
            : saved.updatedAt
              ? `Saved ${formatDateTime(saved.updatedAt)}.`
              : 'Nothing saved yet: every order is held for review.'}
      </p>
    </form>
  );
}
