import { useState } from 'react';
import type { EnvironmentRemoval } from '../../../../shared/environment-removal.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { ConfirmDialog } from '../preview/ConfirmDialog.js';

type Step =
  | { kind: 'idle' }
  | { kind: 'asking' }
  | { kind: 'question'; removal: EnvironmentRemoval; busy: boolean; error?: unknown }
  | { kind: 'failed'; error: unknown };

/**
 * "Remove" for one environment: first what removing does (or why it cannot be removed yet), from the core; then,
 * only if it can go and the admin says so, the removal (the desktop app asks once more in a native dialog).
 */
export function RemoveEnvironment({
  environment,
  onRemoved,
}: {
  environment: EnvironmentView;
  onRemoved: (removal: EnvironmentRemoval) => void;
}) {
  const api = useApi();
  const [step, setStep] = useState<Step>({ kind: 'idle' });

  async function ask() {
    setStep({ kind: 'asking' });
    try {
      const removal = await api.call('environments.removal', { environmentId: environment.id });
      setStep({ kind: 'question', removal, busy: false });
    } catch (error) {
      setStep({ kind: 'failed', error });
    }
  }

  async function remove(removal: EnvironmentRemoval) {
    setStep({ kind: 'question', removal, busy: true });
    try {
      const { removed } = await api.call('environments.remove', { environmentId: environment.id });
      setStep({ kind: 'idle' });
      onRemoved(removed);
    } catch (error) {
      setStep({ kind: 'question', removal, busy: false, error });
    }
  }

  return (
    <>
      <button type="button" className="secondary" disabled={step.kind === 'asking'} onClick={() => void ask()}>
        Remove<span className="visually-hidden"> {environment.name}</span>
      </button>
      {step.kind === 'failed' ? <ErrorMessage error={step.error} /> : null}
      {step.kind === 'question' ? (
        step.removal.removable ? (
          <ConfirmDialog
            title={`Remove ${environment.name}?`}
            confirmLabel="Remove environment"
            cancelLabel="Keep it"
            busy={step.busy}
            onConfirm={() => void remove(step.removal)}
            onCancel={() => setStep({ kind: 'idle' })}
          >
            <p>{step.removal.message}</p>
            {step.error ? <ErrorMessage error={step.error} /> : null}
          </ConfirmDialog>
        ) : (
          <NotYet title={`${environment.name} cannot be removed yet`} onClose={() => setStep({ kind: 'idle' })}>
            {step.removal.message}
          </NotYet>
        )
      ) : null}
    </>
  );
}

/** Why it cannot go now, with one way out. */
function NotYet({ title, children, onClose }: { title: string; children: string; onClose: () => void }) {
  return (
    <dialog
      ref={(dialog) => {
        if (dialog && !dialog.open) dialog.showModal();
      }}
      aria-label={title}
      className="dialog"
      onClose={onClose}
    >
      <h3>{title}</h3>
      <p>{children}</p>
      <div className="dialog-buttons">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
