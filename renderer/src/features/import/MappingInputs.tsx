import type { StringMap } from './value-maps.js';

/** The inputs both mapping steps (CSV and HL7) show, written once so they read and label the same. */

/** A field's constant: used where the file gives no value for it. */
export function ConstantCell({
  field,
  constants,
  onChange,
}: {
  field: { column: string; label: string };
  constants: StringMap;
  onChange: (constants: StringMap) => void;
}) {
  return (
    <td>
      <input
        aria-label={`Constant for ${field.label}`}
        value={constants[field.column] ?? ''}
        onChange={(event) => onChange({ ...constants, [field.column]: event.target.value })}
      />
    </td>
  );
}

/** Value maps as text, one per line (`gender: M => Male`). */
export function ValueMapsField({
  value,
  rows,
  onChange,
}: {
  value: string;
  rows: number;
  onChange: (text: string) => void;
}) {
  return (
    <label className="stacked">
      <span>
        Value maps, one per line (<code>gender: M =&gt; Male</code>)
      </span>
      <textarea rows={rows} value={value} onChange={(event) => onChange(event.target.value)} />
    </label>
  );
}
