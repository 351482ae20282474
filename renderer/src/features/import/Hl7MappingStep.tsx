import { useEffect, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { ImportSummary } from '../../../../shared/staging-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useOnline } from '../format/use-online.js';
import { codeChoices, isCodeListField, type CodeListField } from './code-choices.js';
import { appliedBindingText } from '../intake/binding-text.js';
import { ORDER_FIELDS } from '../preview/order-fields.js';
import { routeHref } from '../workspace/route.js';
import { asStringMap, fieldMapToText, parseFieldMap, parseValueMaps, valueMapsToText } from './value-maps.js';
import { ConstantCell, ValueMapsField } from './MappingInputs.js';
import { SaveProfileForm } from './SaveProfileForm.js';
import { useSaveProfile } from './use-save-profile.js';

/** What an order message never carries: shown first, since every HL7 order needs them unless forwarded. */
const NOT_IN_HL7 = new Set(['paymentType', 'courierCode', 'currencyCode']);
const FIELDS = [
  ...ORDER_FIELDS.filter((f) => NOT_IN_HL7.has(f.column)),
  ...ORDER_FIELDS.filter((f) => !NOT_IN_HL7.has(f.column)),
];

/** The service's courier codes, read once while online (undefined: not read, or not reachable). */
function useServiceCouriers(environmentId: string): string[] | undefined {
  const api = useApi();
  const online = useOnline();
  const [codes, setCodes] = useState<string[]>();
  useEffect(() => {
    if (!online || codes) return;
    let live = true;
    api.call('couriers.priceList', { environmentId }).then(
      (answer) => {
        if (live && answer.ok) setCodes([...new Set(answer.value.map((option) => option.courierCode))]);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, environmentId, online, codes]);
  return codes;
}

/** A constant chosen from the environment's code list (and, for couriers, the service's list when online). */
function CodeListCell({
  column,
  label,
  environment,
  serviceCouriers,
  constants,
  onChange,
}: {
  column: CodeListField;
  label: string;
  environment: EnvironmentView;
  serviceCouriers: string[] | undefined;
  constants: Record<string, string>;
  onChange: (constants: Record<string, string>) => void;
}) {
  const current = constants[column] ?? '';
  return (
    <td>
      <select
        aria-label={`Constant for ${label}`}
        value={current}
        onChange={(event) => onChange({ ...constants, [column]: event.target.value })}
      >
        {codeChoices(column, environment.codeLists, serviceCouriers, current).map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </td>
  );
}

/**
 * The mapping for HL7 files: constants for what the messages do not say (used only where a message leaves the
 * field empty), field map overrides (`courierCode: ZDL-1`) and value maps. Saved as a named profile with the
 * file's sender (MSH-3/MSH-4 and message type), the file is imported again with it, and later files from that
 * sender choose it by themselves (or under "Mapping").
 */
export function Hl7MappingStep({
  summary,
  batchId,
  environment,
  onSaved,
}: {
  summary: ImportSummary;
  batchId: number | undefined;
  environment: EnvironmentView;
  onSaved: (profileName: string, senderWarning: string | null) => void;
}) {
  const serviceCouriers = useServiceCouriers(environment.id);
  const applied = summary.appliedProfile ?? {};
  const [constants, setConstants] = useState(() => asStringMap(applied.constants));
  const [fieldMap, setFieldMap] = useState(() => fieldMapToText(applied.hl7FieldMap));
  const [valueMaps, setValueMaps] = useState(() => valueMapsToText(applied.valueMaps));
  const [name, setName] = useState(() => (typeof applied.name === 'string' ? applied.name : ''));
  const { saving, failure, save: saveProfile } = useSaveProfile(batchId, onSaved);
  const parsedMap = parseFieldMap(fieldMap);
  const parsedValues = parseValueMaps(valueMaps);
  const unreadable = [...parsedMap.bad, ...parsedValues.bad];

  const sender = summary.hl7Sender;
  const binding = appliedBindingText(applied);
  const save = () =>
    saveProfile({
      name,
      columns: {},
      constants,
      valueMaps: parsedValues.maps,
      hl7FieldMap: parsedMap.map,
      // Also for a refused import, which has no batch for the core to take the sender from.
      ...(sender ? { hl7Sender: sender } : {}),
    });

  return (
    <section aria-labelledby="hl7-mapping-heading" className="panel">
      <h3 id="hl7-mapping-heading">HL7 mapping</h3>
      <p className="hint">
        An HL7 order message has no payment type, courier or currency. Choose them from {environment.name}&apos;s code
        lists{serviceCouriers ? ' (couriers also from the service)' : ''}, give constants for anything else the messages
        leave empty, save the mapping as a profile, and the file is imported again with it. Forwarding the HL7 message
        itself (&quot;Send as&quot;) does not need them: the service applies its own.
      </p>
      {sender ? (
        <p className="hint">
          Saved here, the profile is chosen by itself for the next {sender.messageType || 'HL7'} file from sending
          application &quot;{sender.application || '(none)'}&quot; at facility &quot;{sender.facility || '(none)'}
          &quot;.
        </p>
      ) : null}
      {binding ? (
        <p className="hint">
          {binding}{' '}
          <a className="inline-link" href={routeHref({ section: 'intake' })}>
            Open Intake
          </a>
        </p>
      ) : null}
      <div className="mapping-table-wrap">
        <table className="mapping-table">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Constant</th>
            </tr>
          </thead>
          <tbody>
            {FIELDS.map((field) => (
              <tr key={field.column}>
                <th scope="row">{field.label}</th>
                {isCodeListField(field.column) ? (
                  <CodeListCell
                    column={field.column}
                    label={field.label}
                    environment={environment}
                    serviceCouriers={serviceCouriers}
                    constants={constants}
                    onChange={setConstants}
                  />
                ) : (
                  <ConstantCell field={field} constants={constants} onChange={setConstants} />
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="mapping-extras">
        <label className="stacked">
          <span>
            Field map overrides, one per line (<code>courierCode: ZDL-1</code>)
          </span>
          <textarea rows={3} value={fieldMap} onChange={(event) => setFieldMap(event.target.value)} />
        </label>
        <ValueMapsField value={valueMaps} rows={3} onChange={setValueMaps} />
        {unreadable.length ? <p className="bad">! Not read: {unreadable.join('; ')}</p> : null}
      </div>
      <SaveProfileForm
        name={name}
        onName={setName}
        saving={saving}
        blocked={unreadable.length > 0}
        onSave={save}
        pickedBy="sender"
      />
      {failure ? <ErrorMessage error={failure} /> : null}
    </section>
  );
}
