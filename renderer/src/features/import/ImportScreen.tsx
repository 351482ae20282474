import { useCallback, useRef, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { ImportOutcome } from '../../../../shared/staging-views.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { BatchPreview } from '../preview/BatchPreview.js';
import { downloadText } from '../../download-text.js';
import { DetectedSummary, ImportSettingsFields, type ImportSettings } from './DetectedSummary.js';
import { FileChooser } from './FileChooser.js';
import { Hl7MappingStep } from './Hl7MappingStep.js';
import { ImportProgress, type Progress } from './ImportProgress.js';
import { MappingStep } from './MappingStep.js';
import { RecentBatches } from './RecentBatches.js';
import { decodeUpload, fitsUpload, type DecodedUpload } from './read-upload.js';
import './import.css';

type Source = { kind: 'upload'; name: string; bytes: Uint8Array } | { kind: 'path'; path: string };

type Phase =
  | { step: 'idle' }
  | { step: 'reading'; name: string }
  | { step: 'running'; importId: string; name: string; progress?: Progress; cancelling?: boolean }
  | { step: 'done'; outcome: ImportOutcome; decoded?: DecodedUpload }
  | { step: 'failed'; error: unknown }
  | { step: 'too-large'; name: string };

/** Marks the moment an import's answer arrives, for the grid benchmark (time to an interactive grid). */
export const IMPORT_FINISHED_MARK = 'rxbatch:import-finished';

const sourceName = (source: Source) =>
  source.kind === 'upload' ? source.name : (source.path.split(/[\\/]/).pop() ?? source.path);

/**
 * Import: choose or drop a file, watch it being read (and cancel), see what was detected and change it, map an
 * unknown layout (or give an HL7 file's constants), then review the staged batch below. Files travel as text read here in the page (File API);
 * files too large for one message are imported by path.
 */
export function ImportScreen({ environment }: { environment: EnvironmentView }) {
  const api = useApi();
  const [phase, setPhase] = useState<Phase>({ step: 'idle' });
  const [settings, setSettings] = useState<ImportSettings>({ profile: '', encoding: '', route: 'v1' });
  const [openBatchId, setOpenBatchId] = useState<number>();
  const [templateFailure, setTemplateFailure] = useState<unknown>();
  const lastSource = useRef<Source>(undefined);
  const loadProfiles = useCallback(() => api.call('profiles.list', {}), [api]);
  const profiles = useLoad(loadProfiles);

  useEvent('import.progress', (progress) => {
    setPhase((current) =>
      current.step === 'running' && current.importId === progress.importId ? { ...current, progress } : current,
    );
  });

  async function runImport(source: Source, chosen: ImportSettings) {
    lastSource.current = source;
    let decoded: DecodedUpload | undefined;
    let input: { path: string } | { upload: { name: string; content: string } };
    if (source.kind === 'upload') {
      decoded = decodeUpload(source.bytes, chosen.encoding || undefined);
      if (!fitsUpload(decoded.text)) {
        setPhase({ step: 'too-large', name: source.name });
        return;
      }
      input = { upload: { name: source.name, content: decoded.text } };
    } else {
      input = { path: source.path };
    }
    const importId = crypto.randomUUID();
    setPhase({ step: 'running', importId, name: sourceName(source) });
    try {
      const outcome = await api.call('import.file', {
        environmentId: environment.id,
        ...input,
        importId,
        route: chosen.route,
        ...(chosen.profile ? { profile: chosen.profile } : {}),
        // An upload is already decoded here; a file on disk is decoded by the core.
        ...(chosen.encoding && source.kind === 'path' ? { encoding: chosen.encoding } : {}),
      });
      performance.mark(IMPORT_FINISHED_MARK);
      setPhase({ step: 'done', outcome, ...(decoded ? { decoded } : {}) });
      if (outcome.status === 'staged') setOpenBatchId(outcome.batchId);
    } catch (error) {
      setPhase({ step: 'failed', error });
    }
  }

  async function chooseFile(file: File) {
    setPhase({ step: 'reading', name: file.name });
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      await runImport({ kind: 'upload', name: file.name, bytes }, settings);
    } catch (error) {
      setPhase({ step: 'failed', error });
    }
  }

  async function cancel() {
    if (phase.step !== 'running') return;
    setPhase({ ...phase, cancelling: true });
    await api.call('import.cancel', { importId: phase.importId }).catch(() => undefined);
  }

  async function downloadTemplate() {
    try {
      const template = await api.call('template.example', {});
      downloadText(template.fileName, template.text);
      setTemplateFailure(undefined);
    } catch (error) {
      setTemplateFailure(error);
    }
  }

  function reimport(next: ImportSettings) {
    setSettings(next);
    if (lastSource.current) void runImport(lastSource.current, next);
  }

  const busy = phase.step === 'reading' || phase.step === 'running';
  const outcome = phase.step === 'done' ? phase.outcome : undefined;
  const summary = outcome && outcome.status !== 'cancelled' ? outcome.summary : undefined;

  return (
    <section aria-labelledby="screen-heading" className="screen">
      <h2 id="screen-heading" tabIndex={-1}>
        Import
      </h2>
      <section aria-labelledby="import-file-heading" className="panel">
        <div className="panel-head">
          <h3 id="import-file-heading">Import a batch into {environment.name}</h3>
          <button type="button" className="secondary" onClick={() => void downloadTemplate()}>
            Download template
          </button>
        </div>
        {templateFailure ? <ErrorMessage error={templateFailure} /> : null}
        <FileChooser
          disabled={busy}
          onFile={(file) => void chooseFile(file)}
          onPath={(path) => void runImport({ kind: 'path', path }, settings)}
          pathOpen={phase.step === 'too-large'}
        />
        <details className="import-settings">
          <summary>Settings for the next import</summary>
          <ImportSettingsFields settings={settings} profiles={profiles.value ?? []} onChange={setSettings} />
        </details>
        {phase.step === 'reading' ? <p role="status">Reading {phase.name}…</p> : null}
        {phase.step === 'running' ? (
          <ImportProgress
            name={phase.name}
            progress={phase.progress}
            cancelling={phase.cancelling ?? false}
            onCancel={() => void cancel()}
          />
        ) : null}
        {phase.step === 'too-large' ? (
          <p role="alert" className="message message-error">
            {phase.name} is too large to send through this page. Give its path on this computer below instead.
          </p>
        ) : null}
        {phase.step === 'failed' ? <ErrorMessage error={phase.error} /> : null}
        {outcome?.status === 'cancelled' ? <p role="status">Import cancelled; nothing was staged.</p> : null}
        {outcome?.status === 'refused' ? (
          <div role="alert" className="message message-error">
            <p className="message-summary">This file cannot be imported; nothing was staged.</p>
            <ul className="problem-list">
              {outcome.problems.map((problem, i) => (
                <li key={i}>{problem.text}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {outcome?.status === 'staged' ? (
          <p role="status" className="message">
            ✓ Imported {outcome.orders.toLocaleString('en-GB')} orders: {outcome.valid.toLocaleString('en-GB')} valid,{' '}
            {outcome.invalid.toLocaleString('en-GB')} with errors. Review them below.
          </p>
        ) : null}
      </section>
      {summary ? (
        <DetectedSummary
          summary={summary}
          browserEncoding={phase.step === 'done' ? phase.decoded : undefined}
          settings={settings}
          profiles={profiles.value ?? []}
          busy={busy}
          onChange={setSettings}
          onReimport={() => reimport(settings)}
        />
      ) : null}
      {summary && summary.format === 'csv' && summary.profile === 'suggested' ? (
        <MappingStep
          key={outcome?.status === 'staged' ? outcome.batchId : 'refused'}
          summary={summary}
          batchId={outcome?.status === 'staged' ? outcome.batchId : undefined}
          onSaved={(profileName) => {
            profiles.reload();
            reimport({ ...settings, profile: profileName });
          }}
        />
      ) : null}
      {summary && summary.format === 'hl7' ? (
        <Hl7MappingStep
          key={outcome?.status === 'staged' ? outcome.batchId : 'refused'}
          summary={summary}
          batchId={outcome?.status === 'staged' ? outcome.batchId : undefined}
          onSaved={(profileName) => {
            profiles.reload();
            reimport({ ...settings, profile: profileName });
          }}
        />
      ) : null}
      {openBatchId !== undefined ? (
        <BatchPreview key={openBatchId} batchId={openBatchId} environment={environment} />
      ) : null}
      <RecentBatches environment={environment} openBatchId={openBatchId} onOpen={setOpenBatchId} />
    </section>
  );
}
