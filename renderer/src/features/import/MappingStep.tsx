import { useState } from 'react';
import type { ImportSummary } from '../../../../shared/staging-views.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { ORDER_FIELDS } from '../preview/order-fields.js';
import { asStringMap, parseValueMaps, valueMapsToText, type StringMap } from './value-maps.js';
import { ConstantCell, ValueMapsField } from './MappingInputs.js';
import { SaveProfileForm } from './SaveProfileForm.js';
import { unmappedRequired } from './unmapped-required.js';
import { useSaveProfile } from './use-save-profile.js';

const DATE_FORMATS = [
  ['', 'Unambiguous dates only'],
  ['iso', 'YYYY-MM-DD'],
  ['dd/MM/yyyy', 'DD/MM/YYYY'],
  ['d/M/yy', 'D/M/YY'],
  ['dd-MMM-yyyy', 'DD-Mon-YYYY'],
  ['MM/dd/yyyy', 'MM/DD/YYYY (US)'],
] as const;
type DateFormat = Exclude<(typeof DATE_FORMATS)[number][0], ''>;

/**
 * The mapping for a layout the app did not recognise: each of our fields with the file column matched to it (the
 * importer's suggestion to start from) or a constant, value maps and the date format. Saved as a named profile,
 * it is chosen automatically next time a file with the same header comes in; the file is imported again with it.
 */
export function MappingStep({
  summary,
  batchId,
  onSaved,
}: {
  summary: ImportSummary;
  batchId: number | undefined;
  onSaved: (profileName: string, senderWarning: string | null) => void;
}) {
  const applied = summary.appliedProfile ?? {};
  // A file in which no header row was found offers a row to map as one (the first of its most common width).
  const candidate = summary.headerCells ? undefined : summary.candidateHeader;
  const headers = [...new Set((summary.headerCells ?? candidate?.cells ?? []).filter((cell) => cell.trim() !== ''))];
  const [columns, setColumns] = useState<StringMap>(() => asStringMap(applied.columns));
  const [constants, setConstants] = useState<StringMap>(() => asStringMap(applied.constants));
  const [valueMaps, setValueMaps] = useState(() => valueMapsToText(applied.valueMaps));
  const [dateFormat, setDateFormat] = useState<string>(() =>
    typeof applied.dateFormat === 'string' ? applied.dateFormat : '',
  );
  const [name, setName] = useState('');
  const { saving, failure, save: saveProfile } = useSaveProfile(batchId, onSaved, candidate?.cells);
  const parsedMaps = parseValueMaps(valueMaps);
  const missing = unmappedRequired(columns, constants);

  const save = () =>
    saveProfile({
      name,
      columns: Object.fromEntries(Object.entries(columns).filter(([, header]) => header)),
      constants,
      valueMaps: parsedMaps.maps,
      ...(dateFormat ? { dateFormat: dateFormat as DateFormat } : {}),
    });

  return (
    <section aria-labelledby="mapping-heading" className="panel">
      <h3 id="mapping-heading">Map this layout</h3>
      <p className="hint">
        {candidate
          ? `No row of this file names our fields, so line ${candidate.row} is offered as its header. Choose the file column for each field (or a constant), and save the mapping as a profile: the file is imported again with it, and files with the same header will use it automatically.`
          : "No saved profile matched this file's header, so the columns below were matched by name. Check them, fill what is missing with a file column or a constant, and save the mapping as a profile: files with the same header will use it automatically."}{' '}
        Without any delivery column or constant, orders go to the home address.
      </p>
      {missing.length ? (
        <p className="bad">! Required and not mapped: {missing.map((f) => f.label).join(', ')}</p>
      ) : null}
      <div className="mapping-table-wrap">
        <table className="mapping-table">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">File column</th>
              <th scope="col">Constant</th>
            </tr>
          </thead>
          <tbody>
            {ORDER_FIELDS.map((field) => (
              <tr key={field.column}>
                <th scope="row">
                  {field.label}
                  {field.required ? <span aria-hidden="true"> *</span> : null}
                  {field.required ? <span className="visually-hidden"> (required)</span> : null}
                </th>
                <td>
                  <select
                    aria-label={`File column for ${field.label}`}
                    value={columns[field.column] ?? ''}
                    onChange={(event) => setColumns({ ...columns, [field.column]: event.target.value })}
                  >
                    <option value="">(not in the file)</option>
                    {headers.map((header) => (
                      <option key={header} value={header}>
                        {header}
                      </option>
                    ))}
                  </select>
                </td>
                <ConstantCell field={field} constants={constants} onChange={setConstants} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="mapping-extras">
        <label>
          Dates are written as{' '}
          <select value={dateFormat} onChange={(event) => setDateFormat(event.target.value)}>
            {DATE_FORMATS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <ValueMapsField value={valueMaps} rows={4} onChange={setValueMaps} />
        {parsedMaps.bad.length ? (
          <p className="bad">! Not read (write column: value =&gt; our value): {parsedMaps.bad.join('; ')}</p>
        ) : null}
      </div>
      <SaveProfileForm
        name={name}
        onName={setName}
        saving={saving}
        blocked={parsedMaps.bad.length > 0}
        onSave={save}
        pickedBy="header"
      />
      {failure ? <ErrorMessage error={failure} /> : null}
    </section>
  );
}
