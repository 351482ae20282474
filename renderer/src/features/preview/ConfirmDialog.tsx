import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal question before an action that cannot be taken back from this screen (accepting into a real service,
 * discarding a batch): focus stays inside, Escape or the second button says no. The confirming button names the
 * action, so it reads right on its own.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel,
  busy,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const headingId = useId();
  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
    // Saying no is the safe default: it has the focus (showModal gives it to the first button otherwise).
    cancelRef.current?.focus();
  }, []);
  return (
    <dialog ref={dialogRef} aria-labelledby={headingId} className="dialog" onClose={onCancel}>
      <h3 id={headingId}>{title}</h3>
      {children}
      <div className="dialog-buttons">
        <button type="button" onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </button>
        <button ref={cancelRef} type="button" className="secondary" onClick={onCancel}>
          {cancelLabel}
        </button>
      </div>
    </dialog>
  );
}
