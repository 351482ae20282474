import type { SavedProfileView, ImportSummary, RouteName } from '../../../../shared/staging-views.js';
import { UPLOAD_ENCODINGS } from './read-upload.js';

export interface ImportSettings {
  /** '' lets the header choose (a saved profile's fingerprint, the template, or a suggestion). */
  profile: string;
  /** '' detects. */
  encoding: string;
  route: RouteName;
}

const DELIMITERS: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };

function profileText(profile: string | undefined, format: ImportSummary['format']): string {
  if (profile === undefined) return format === 'hl7' ? 'the standard HL7 field map' : 'none';
  if (profile === 'template') return 'Rx Batch template';
  if (profile === 'suggested') return 'matched by column names (no saved profile fits this header)';
  return `saved profile "${profile}" (chosen by the header)`;
}

/** What the import found out about the file, and the settings to import it again differently. */
export function DetectedSummary({
  summary,
  browserEncoding,
  settings,
  profiles,
  busy,
  onChange,
  onReimport,
}: {
  summary: ImportSummary;
  /** For a browser upload: how the browser decoded it (the core then reads UTF-8 text). */
  browserEncoding: { encoding: string; detected: boolean } | undefined;
  settings: ImportSettings;
  profiles: SavedProfileView[];
  busy: boolean;
  onChange: (settings: ImportSettings) => void;
  onReimport: () => void;
}) {
  const encoding = browserEncoding ?? { encoding: summary.encoding, detected: summary.encodingDetected };
  return (
    <section aria-labelledby="detected-heading" className="panel">
      <h3 id="detected-heading">What was found</h3>
      <dl className="report">
        <dt>Format</dt>
        <dd>{summary.format.toUpperCase()}</dd>
        <dt>Encoding</dt>
        <dd>
          {encoding.encoding} {encoding.detected ? '(detected)' : '(as chosen)'}
        </dd>
        {summary.delimiter !== undefined ? (
          <>
            <dt>Delimiter</dt>
            <dd>{DELIMITERS[summary.delimiter] ?? summary.delimiter}</dd>
          </>
        ) : null}
        {summary.headerRow !== undefined ? (
          <>
            <dt>Header row</dt>
            <dd>line {summary.headerRow}</dd>
          </>
        ) : null}
        {summary.messageTypes?.length ? (
          <>
            <dt>Message types</dt>
            <dd>{summary.messageTypes.join(', ')}</dd>
          </>
        ) : null}
        <dt>Mapping</dt>
        <dd>{profileText(summary.profile, summary.format)}</dd>
        <dt>{summary.format === 'hl7' ? 'Messages read' : 'Rows read'}</dt>
        <dd>{summary.rowsRead.toLocaleString('en-GB')}</dd>
      </dl>
      {summary.fileProblems.length ? (
        <>
          <h4>About the file</h4>
          <ul className="problem-list">
            {summary.fileProblems.map((problem, i) => (
              <li key={i} className={problem.severity === 'error' ? 'bad' : 'warn'}>
                <strong>{problem.severity === 'error' ? '✕ Error' : '⚠ Warning'}:</strong> {problem.text}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <details className="change-detection">
        <summary>Change what was detected</summary>
        <ImportSettingsFields settings={settings} profiles={profiles} onChange={onChange} />
        <button type="button" onClick={onReimport} disabled={busy}>
          Import again with these settings
        </button>
      </details>
    </section>
  );
}

export function ImportSettingsFields({
  settings,
  profiles,
  onChange,
}: {
  settings: ImportSettings;
  profiles: SavedProfileView[];
  onChange: (settings: ImportSettings) => void;
}) {
  return (
    <div className="search-form">
      <label>
        Mapping{' '}
        <select value={settings.profile} onChange={(event) => onChange({ ...settings, profile: event.target.value })}>
          <option value="">Chosen by the header</option>
          <option value="template">Rx Batch template</option>
          {profiles.map((profile) => (
            <option key={profile.name} value={profile.name}>
              {profile.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Encoding{' '}
        <select value={settings.encoding} onChange={(event) => onChange({ ...settings, encoding: event.target.value })}>
          <option value="">Detect</option>
          {UPLOAD_ENCODINGS.map((encoding) => (
            <option key={encoding} value={encoding}>
              {encoding}
            </option>
          ))}
        </select>
      </label>
      <label>
        Send as{' '}
        <select
          value={settings.route}
          onChange={(event) => onChange({ ...settings, route: event.target.value as RouteName })}
        >
          <option value="v1">Create with clinic (v1)</option>
          <option value="v2">Create (v2)</option>
          <option value="hl7">Forward the HL7 message (HL7 files)</option>
        </select>
      </label>
    </div>
  );
}
