import { useEffect, useRef, useState, type ReactNode } from 'react';
import { focusLost } from '../focus/focus-return.js';
import type { ProblemView, StagedOrderView } from '../../../../shared/staging-views.js';
import type { GridColumn } from './grid-columns.js';
import { OrderHistory } from './OrderHistory.js';
import { describeProvenance, provenanceSegment } from './provenance-text.js';
import { concretePath, displayValue, fieldOfPath, valueAt } from './order-fields.js';

interface Props {
  id?: string;
  order: StagedOrderView | undefined;
  line: number;
  /** The focused cell's column. */
  column: GridColumn | undefined;
  onEdit: (order: StagedOrderView, path: string, value: string) => Promise<boolean>;
  /** Nothing can be edited (a discarded batch). */
  readOnly?: boolean;
  /** More about the focused order, shown after its problems (the service check). */
  children?: ReactNode;
}

function ProblemLine({ problem }: { problem: ProblemView }) {
  return (
    <li className={problem.severity === 'error' ? 'bad' : 'warn'}>
      <strong>{problem.severity === 'error' ? '✕ Error' : '⚠ Warning'}:</strong> {problem.text}
    </li>
  );
}

/** A field the grid has no column for, edited here (a problem can sit on one). */
function FieldEditor({ order, path, onEdit }: { order: StagedOrderView; path: string; onEdit: Props['onEdit'] }) {
  const field = fieldOfPath(path);
  const [original] = useState(() => displayValue(valueAt(order.body, path)));
  const [value, setValue] = useState(original);
  const [saving, setSaving] = useState(false);
  const saveButton = useRef<HTMLButtonElement>(null);
  const label = field?.label ?? path;
  const save = () => {
    setSaving(true);
    void onEdit(order, path, value).finally(() => setSaving(false));
  };
  return (
    <form
      className="inline-form"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <label>
        {label}{' '}
        <input
          name={path}
          value={value}
          onChange={(event) => setValue(event.target.value)}
          disabled={saving}
          onBlur={(event) => {
            // Typed and left (another order, another screen) is saved, as in the grid; not on the way to its own
            // Save button, nor when another window takes the focus.
            if (event.relatedTarget === saveButton.current || !document.hasFocus()) return;
            if (value !== original && !saving) save();
          }}
        />
      </label>
      <button type="submit" ref={saveButton} disabled={saving}>
        {saving ? 'Saving…' : `Save ${label}`}
      </button>
    </form>
  );
}

/**
 * The focused cell in full: its value, where it came from (CSV line and column, or the HL7 field with its
 * segment), its problems, and the order's other problems, with editors for fields the grid has no column for,
 * then whatever the preview adds about the order (the service check, kept apart from the problems).
 */
export function CellDetails({ id, order, line, column, onEdit, readOnly = false, children }: Props) {
  const asideRef = useRef<HTMLElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  // A saved off-grid edit re-creates its editor (or removes it, once the field is fixed), which drops the keyboard
  // onto the page: it goes back to that field's editor, or to this order's heading once the editor is gone.
  const refocus = useRef<string>(undefined);
  const [, setSaves] = useState(0);
  useEffect(() => {
    const path = refocus.current;
    if (path === undefined) return;
    if (!focusLost(document.activeElement, document.body)) {
      refocus.current = undefined;
      return;
    }
    const input = asideRef.current?.querySelector<HTMLInputElement>(`input[name="${CSS.escape(path)}"]`);
    if (input?.disabled) return;
    refocus.current = undefined;
    (input ?? headingRef.current)?.focus();
  });
  const editOffGrid: Props['onEdit'] = async (edited, path, value) => {
    const saved = await onEdit(edited, path, value);
    refocus.current = path;
    setSaves((count) => count + 1);
    return saved;
  };
  if (!order) {
    return (
      <aside id={id} aria-labelledby="cell-details-heading" className="panel cell-details">
        <h3 id="cell-details-heading">Details</h3>
        <p className="hint">Move to a cell to see where its value came from.</p>
      </aside>
    );
  }
  const field = column?.kind === 'field' ? column.field : undefined;
  const path = field ? concretePath(field, field.level === 'item' ? line : 0) : undefined;
  const provenance = path ? order.provenance[path] : undefined;
  const segment = provenanceSegment(provenance);
  const cellProblems = path ? order.problems.filter((problem) => problem.field === path) : [];
  const otherProblems = order.problems.filter((problem) => problem.field !== path);
  const offGrid = [
    ...new Set(
      order.problems
        .map((problem) => problem.field)
        .filter((f): f is string => f !== undefined && !fieldOfPath(f)?.inGrid && fieldOfPath(f) !== undefined),
    ),
  ];
  const source = order.rows?.length
    ? `line${order.rows.length > 1 ? 's' : ''} ${order.rows.join(', ')}`
    : order.message !== undefined
      ? `message ${order.message}`
      : undefined;

  return (
    <aside id={id} ref={asideRef} aria-labelledby="cell-details-heading" className="panel cell-details">
      <h3 id="cell-details-heading" ref={headingRef} tabIndex={-1}>
        Order {order.position}
        {order.clinicOrderId ? ` (${order.clinicOrderId})` : ''}
      </h3>
      <dl className="report">
        <dt>State</dt>
        <dd>
          {order.state === 'accepted' ? 'Accepted into the outbox' : order.valid ? '✓ Valid' : '✕ Has errors'}
          {order.edited ? ' · edited' : ''}
        </dd>
        {source ? (
          <>
            <dt>In the file</dt>
            <dd>{source}</dd>
          </>
        ) : null}
        {field && path ? (
          <>
            <dt>Field</dt>
            <dd>
              {field.label} <code>{path}</code>
            </dd>
            <dt>Value</dt>
            <dd>{displayValue(valueAt(order.body, path)) || <span className="hint">(blank)</span>}</dd>
            <dt>Came from</dt>
            <dd>{describeProvenance(provenance)}</dd>
          </>
        ) : null}
      </dl>
      {segment ? (
        <figure className="segment">
          <figcaption>HL7 segment</figcaption>
          <code>{segment}</code>
        </figure>
      ) : null}
      {cellProblems.length ? (
        <>
          <h4>This cell</h4>
          <ul className="problem-list">
            {cellProblems.map((problem, i) => (
              <ProblemLine key={i} problem={problem} />
            ))}
          </ul>
        </>
      ) : null}
      {otherProblems.length ? (
        <>
          <h4>{cellProblems.length ? 'Rest of this order' : 'This order'}</h4>
          <ul className="problem-list">
            {otherProblems.map((problem, i) => (
              <ProblemLine key={i} problem={problem} />
            ))}
          </ul>
        </>
      ) : null}
      {!readOnly && order.state === 'staged' && order.orderControl === 'NW'
        ? offGrid.map((offPath) => (
            <FieldEditor
              // A new value (an undo, a find and replace) starts the editor afresh.
              key={`${order.id}-${offPath}-${displayValue(valueAt(order.body, offPath))}`}
              order={order}
              path={offPath}
              onEdit={editOffGrid}
            />
          ))
        : null}
      <OrderHistory order={order} />
      {children}
    </aside>
  );
}
