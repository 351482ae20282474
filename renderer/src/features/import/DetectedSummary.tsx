import { useId } from 'react';
import { notReadableAsChosen } from '../../../../shared/encoding-warning.js';
import { ORDER_MESSAGE_TYPES_IN_WORDS, isOrderMessageType } from '../../../../shared/hl7-message-types.js';
import type { SavedProfileView, ImportSummary, RouteName } from '../../../../shared/staging-views.js';
import { ROUTE_TEXT } from '../preview/route-text.js';
import { UPLOAD_ENCODINGS } from './read-upload.js';

export interface ImportSettings {
  /**
   * '' lets the file choose (a saved profile by a CSV header's fingerprint or an HL7 file's sender, the template,
   * or a suggestion); NO_PROFILE uses no saved profile; else a saved profile's name or `template`.
   */
  profile: string;
  /** '' detects. */
  encoding: string;
  route: RouteName;
}

/** The settings value for "no saved profile". A leading space: no saved name can be it (names are trimmed). */
export const NO_PROFILE = ' none';

/** The profile part of an `import.file` call for these settings. */
export function profileRequest(settings: ImportSettings): { profile?: string; autoProfile?: boolean } {
  if (settings.profile === NO_PROFILE) return { autoProfile: false };
  return settings.profile ? { profile: settings.profile } : {};
}

const DELIMITERS: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1) + '.';

function profileText(summary: ImportSummary): string {
  // Why the profile was chosen, as the importer said it (imports from before it said so: from the name alone).
  if (summary.profileChoice) return sentence(summary.profileChoice.reason);
  const { profile, format } = summary;
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
  browserEncoding: { encoding: string; detected: boolean; unreadable?: boolean } | undefined;
  settings: ImportSettings;
  profiles: SavedProfileView[];
  busy: boolean;
  onChange: (settings: ImportSettings) => void;
  /** Imports the file again: with the settings shown, or with `next`. */
  onReimport: (next?: ImportSettings) => void;
}) {
  const encoding = browserEncoding ?? { encoding: summary.encoding, detected: summary.encodingDetected };
  // A browser upload is decoded here, so what its chosen encoding could not read is said here, as the core would.
  const fileProblems = browserEncoding?.unreadable
    ? [{ severity: 'warning' as const, text: notReadableAsChosen(browserEncoding.encoding) }, ...summary.fileProblems]
    : summary.fileProblems;
  return (
    <section aria-labelledby="detected-heading" className="panel">
      <h3 id="detected-heading">What was found</h3>
      <dl className="report detected-report">
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
            <dd>
              {summary.messageTypes
                .map((type) => (isOrderMessageType(type) ? type : `${type} (not an order)`))
                .join(', ')}
            </dd>
          </>
        ) : null}
        <dt>Mapping</dt>
        <dd>{profileText(summary)}</dd>
        <dt>{summary.format === 'hl7' ? 'Messages read' : 'Rows read'}</dt>
        <dd>{summary.rowsRead.toLocaleString('en-GB')}</dd>
      </dl>
      {summary.messageTypes?.length && !summary.messageTypes.some(isOrderMessageType) ? (
        <p className="bad" role="note">
          No message in this file is an order, and no fix here can make one: orders come as{' '}
          {ORDER_MESSAGE_TYPES_IN_WORDS}. Ask the sender for the prescriptions&apos; order messages.
        </p>
      ) : null}
      <ProfileChoiceActions summary={summary} settings={settings} busy={busy} onReimport={onReimport} />
      {fileProblems.length ? (
        <>
          <h4>About the file</h4>
          <ul className="problem-list">
            {fileProblems.map((problem, i) => (
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
        <button type="button" onClick={() => onReimport()} disabled={busy}>
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
  const id = useId();
  return (
    <div className="search-form">
      <label>
        Mapping{' '}
        <select value={settings.profile} onChange={(event) => onChange({ ...settings, profile: event.target.value })}>
          <option value="">Chosen by the header or sender</option>
          <option value={NO_PROFILE}>No saved profile</option>
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
      <span className="route-choice">
        <label>
          Send as{' '}
          <select
            value={settings.route}
            aria-describedby={`${id}-route-call`}
            onChange={(event) => onChange({ ...settings, route: event.target.value as RouteName })}
          >
            <option value="v1">{ROUTE_TEXT.v1.label}</option>
            <option value="v2">{ROUTE_TEXT.v2.label}</option>
            <option value="hl7">{ROUTE_TEXT.hl7.label} (HL7 files)</option>
          </select>
        </label>
        <span id={`${id}-route-call`} className="hint">
          {ROUTE_TEXT[settings.route].serviceCall}
        </span>
      </span>
    </div>
  );
}

/**
 * A saved profile the file chose (by its CSV header or its HL7 sender) can be set aside in one click; several
 * profiles saved for one HL7 sender are a question: one button per profile.
 */
function ProfileChoiceActions({
  summary,
  settings,
  busy,
  onReimport,
}: {
  summary: ImportSummary;
  settings: ImportSettings;
  busy: boolean;
  onReimport: (next: ImportSettings) => void;
}) {
  const choice = summary.profileChoice;
  if (choice?.via === 'several') {
    return (
      <div className="profile-choice" role="group" aria-label="Choose a profile">
        {(choice.candidates ?? []).map((name) => (
          <button key={name} type="button" disabled={busy} onClick={() => onReimport({ ...settings, profile: name })}>
            Import again with &quot;{name}&quot;
          </button>
        ))}
      </div>
    );
  }
  if (choice?.via !== 'sender' && choice?.via !== 'header') return null;
  return (
    <div className="profile-choice">
      <button
        type="button"
        className="secondary"
        disabled={busy}
        onClick={() => onReimport({ ...settings, profile: NO_PROFILE })}
      >
        Import again without a saved profile
      </button>{' '}
      <span className="hint">or choose another under &quot;Change what was detected&quot;.</span>
    </div>
  );
}
