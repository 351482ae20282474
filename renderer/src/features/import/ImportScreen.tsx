import { useCallback, useEffect, useEffectEvent, useRef, useState } from 'react';
import type { SkippedFile } from '../../../../shared/desktop-contract.js';
import { invalidInWords } from '../../../../shared/hl7-message-types.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { ImportOutcome } from '../../../../shared/staging-views.js';
import { ContractError } from '../../../../shared/errors.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { BatchPreview } from '../preview/BatchPreview.js';
import { downloadText } from '../../download-text.js';
import { plural } from '../format/format-time.js';
import { DetectedSummary, ImportSettingsFields, profileRequest, type ImportSettings } from './DetectedSummary.js';
import { droppedFilePaths, fileNameOf } from './desktop-files.js';
import { FileChooser, pathImportHint } from './FileChooser.js';
import { fileResult, HandOverList, type HandOver } from './HandOverList.js';
import { Hl7MappingStep } from './Hl7MappingStep.js';
import { useImportRequests, type RequestedFiles } from './import-requests.js';
import { ImportProgress, type Progress } from './ImportProgress.js';
import { MappingStep } from './MappingStep.js';
import { RecentBatches } from './RecentBatches.js';
import { decodeUpload, fitsUpload, type DecodedUpload } from './read-upload.js';
import { importRoute, samePlace, type BatchPlace } from '../workspace/route.js';
import { replaceRoute } from '../workspace/use-hash-route.js';
import './import.css';

type Source = { kind: 'upload'; name: string; bytes: Uint8Array } | { kind: 'path'; path: string };

type Phase =
  | { step: 'idle' }
  | { step: 'reading'; name: string }
  | { step: 'running'; importId: string; name: string; progress?: Progress; cancelling?: boolean }
  | { step: 'done'; name: string; outcome: ImportOutcome; decoded?: DecodedUpload }
  | { step: 'failed'; error: unknown }
  | { step: 'too-large'; name: string }
  | { step: 'unread'; name: string; message: string };

/** Marks the moment an import's answer arrives, for the grid benchmark (time to an interactive grid). */
export const IMPORT_FINISHED_MARK = 'rxbatch:import-finished';

const sourceName = (source: Source) => (source.kind === 'upload' ? source.name : fileNameOf(source.path));

type Attempt = { outcome: ImportOutcome } | { error: unknown };

/**
 * Import: choose or drop a file, watch it being read (and cancel), see what was detected and change it, map an
 * unknown layout (or give an HL7 file's constants), then review the staged batch below. In the desktop app
 * (`desktop`) files are chosen in the system's dialog, dropped, or handed over by the OS, and the core reads them
 * from disk by path, several in turn. In browser mode they travel as text read here in the page (File API);
 * files too large for one message are imported by path, from the folders the host allows (`importFolders`).
 */
export function ImportScreen({
  environment,
  desktop,
  importFolders,
  reopen,
}: {
  environment: EnvironmentView;
  desktop: boolean;
  importFolders: readonly string[];
  /** A batch preview to open at once (`#/import?batch=…&order=…`, e.g. "Back to batch" in Lookups). */
  reopen?: BatchPlace | undefined;
}) {
  const api = useApi();
  const [phase, setPhase] = useState<Phase>({ step: 'idle' });
  const [handOver, setHandOver] = useState<HandOver>();
  const [handingOver, setHandingOver] = useState(false);
  const requests = useImportRequests();
  const started = useRef(new Set<number>());
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const [settings, setSettings] = useState<ImportSettings>({ profile: '', encoding: '', route: 'v1' });
  // The preview on screen: a batch, and the order it opened at when the address named one (Back from Lookups).
  const [open, setOpen] = useState<BatchPlace | undefined>(reopen);
  const openBatchId = open?.batchId;
  // The screen follows the address: a batch named in it (typed, or from a link) is opened…
  const [addressed, setAddressed] = useState(reopen);
  // (The bare section, e.g. from the menu, keeps the open batch but ends the opening at an order.)
  if (!samePlace(addressed, reopen)) {
    setAddressed(reopen);
    setOpen((current) => reopen ?? (current && { batchId: current.batchId }));
  }
  // …and the address follows the screen: another batch opened, or a new import's batch, replaces it.
  useEffect(() => replaceRoute(importRoute(open)), [open, addressed]);
  const openBatch = useCallback((batchId: number) => setOpen({ batchId }), []);
  // Said when a saved HL7 profile shares its sender with other saved profiles; kept until another file is chosen.
  const [senderWarning, setSenderWarning] = useState<string | null>(null);
  const [templateFailure, setTemplateFailure] = useState<unknown>();
  const lastSource = useRef<Source>(undefined);
  const loadProfiles = useCallback(() => api.call('profiles.list', {}), [api]);
  const profiles = useLoad(loadProfiles);

  useEvent('import.progress', (progress) => {
    setPhase((current) =>
      current.step === 'running' && current.importId === progress.importId ? { ...current, progress } : current,
    );
  });

  async function runImport(source: Source, chosen: ImportSettings): Promise<Attempt | undefined> {
    lastSource.current = source;
    let decoded: DecodedUpload | undefined;
    let input: { path: string } | { upload: { name: string; content: string } };
    if (source.kind === 'upload') {
      decoded = await decodeUpload(source.bytes, chosen.encoding || undefined);
      if (decoded.refused !== undefined) {
        setPhase({ step: 'unread', name: source.name, message: decoded.refused });
        return undefined;
      }
      if (!fitsUpload(decoded.text)) {
        setPhase({ step: 'too-large', name: source.name });
        return undefined;
      }
      input = { upload: { name: source.name, content: decoded.text } };
    } else {
      input = { path: source.path };
    }
    const importId = crypto.randomUUID();
    setPhase({ step: 'running', importId, name: sourceName(source) });
    // A new import: the order the preview was opened at is no longer what the admin is looking at.
    setOpen((current) => (current?.stagedOrderId !== undefined ? { batchId: current.batchId } : current));
    try {
      const outcome = await api.call('import.file', {
        environmentId: environment.id,
        ...input,
        importId,
        route: chosen.route,
        ...profileRequest(chosen),
        // An upload is already decoded here; a file on disk is decoded by the core.
        ...(chosen.encoding && source.kind === 'path' ? { encoding: chosen.encoding } : {}),
      });
      performance.mark(IMPORT_FINISHED_MARK);
      setPhase({ step: 'done', name: sourceName(source), outcome, ...(decoded ? { decoded } : {}) });
      if (outcome.status === 'staged') openBatch(outcome.batchId);
      return { outcome };
    } catch (error) {
      setPhase({ step: 'failed', error });
      return { error };
    }
  }

  /** Files on disk, one after another, each through the same `import.file` call; a cancel leaves the rest. */
  async function importPaths(paths: readonly string[], skipped: SkippedFile[]) {
    setSenderWarning(null);
    setHandingOver(true);
    setHandOver({ results: [], remaining: paths.length, skipped });
    try {
      for (const [index, path] of paths.entries()) {
        // Switching screens or environments stops a hand-over: the rest would land where the admin no longer looks.
        if (!mounted.current) return;
        const attempt = await runImport({ kind: 'path', path }, settings);
        if (!attempt) continue;
        const left = paths.length - index - 1;
        const cancelled = 'outcome' in attempt && attempt.outcome.status === 'cancelled';
        setHandOver(
          (current) =>
            current && {
              ...current,
              results: [...current.results, fileResult(fileNameOf(path), attempt)],
              remaining: cancelled ? 0 : left,
              ...(cancelled && left > 0 ? { stoppedWith: left } : {}),
            },
        );
        if (cancelled) return;
      }
    } finally {
      setHandingOver(false);
    }
  }

  async function chooseNative(purpose: 'import' | 'import-folder') {
    try {
      const chosen = await api.call('files.choose', { purpose });
      if (!chosen.ok) {
        setPhase({ step: 'failed', error: new ContractError({ code: 'forbidden', message: chosen.message }) });
        return;
      }
      if (chosen.paths.length === 0 && chosen.skipped.length === 0) return; // cancelled in the dialog
      await importPaths(chosen.paths, chosen.skipped);
    } catch (error) {
      setPhase({ step: 'failed', error });
    }
  }

  function dropFiles(files: File[]) {
    // The desktop app knows where a dropped file is: the core streams it from disk, however large.
    const paths = droppedFilePaths(files);
    if (paths.length > 0) {
      void importPaths(paths, []);
      return;
    }
    const [first] = files;
    if (first) void chooseFile(first);
  }

  const takeHandOver = useEffectEvent((files: RequestedFiles) => {
    if (started.current.has(files.id)) return;
    started.current.add(files.id);
    requests.start(files.id);
    void importPaths(files.paths, files.skipped);
  });

  async function chooseFile(file: File) {
    setSenderWarning(null);
    setHandOver(undefined);
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

  async function downloadTemplate(part: 'template' | 'guide') {
    try {
      const template = await api.call('template.example', {});
      if (part === 'guide') downloadText(template.guide.fileName, template.guide.text, 'text/plain;charset=utf-8');
      else downloadText(template.fileName, template.text);
      setTemplateFailure(undefined);
    } catch (error) {
      setTemplateFailure(error);
    }
  }

  function reimport(next: ImportSettings) {
    setSettings(next);
    if (lastSource.current) void runImport(lastSource.current, next);
  }

  const busy = phase.step === 'reading' || phase.step === 'running' || handingOver;
  const nextHandOver = requests.waiting[0];
  // Files handed over by the OS or the File menu: imported in turn, each once the previous import has finished.
  useEffect(() => {
    if (nextHandOver && !busy) takeHandOver(nextHandOver);
  }, [nextHandOver, busy]);
  const outcome = phase.step === 'done' ? phase.outcome : undefined;
  const outcomeName = phase.step === 'done' ? phase.name : '';
  const summary = outcome && outcome.status !== 'cancelled' ? outcome.summary : undefined;
  // "Save profile and import again" goes with its mapping step once the file is read with the profile: the keyboard
  // goes to the batch's preview, which the window has been brought to (else to what the import said).
  const outcomeRef = useRef<HTMLParagraphElement>(null);
  useFocusWhenLost(outcome, () => document.getElementById('preview-heading') ?? outcomeRef.current, {
    preventScroll: true,
  });

  return (
    // With a batch open the screen is a workspace: the whole window's width, and less above the grid.
    <section aria-labelledby="screen-heading" className={`screen${openBatchId !== undefined ? ' screen-wide' : ''}`}>
      <h2 id="screen-heading" tabIndex={-1}>
        Import
      </h2>
      <section aria-labelledby="import-file-heading" className="panel import-panel">
        <div className="panel-head">
          <h3 id="import-file-heading">Import a batch into {environment.name}</h3>
          <div className="button-row">
            <button type="button" className="secondary" onClick={() => void downloadTemplate('template')}>
              Download template
            </button>
            <button type="button" className="secondary" onClick={() => void downloadTemplate('guide')}>
              Column guide
            </button>
          </div>
        </div>
        {templateFailure ? <ErrorMessage error={templateFailure} /> : null}
        <FileChooser
          disabled={busy}
          desktop={desktop}
          importFolders={importFolders}
          onFiles={dropFiles}
          onChoose={(purpose) => void chooseNative(purpose)}
          onPath={(path) => {
            setSenderWarning(null);
            setHandOver(undefined);
            void runImport({ kind: 'path', path }, settings);
          }}
          pathOpen={phase.step === 'too-large'}
        />
        {requests.failure ? <ErrorMessage error={requests.failure} /> : null}
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
        {handOver ? <HandOverList handOver={handOver} /> : null}
        {phase.step === 'too-large' ? (
          <p role="alert" className="message message-error">
            {desktop
              ? `${phase.name} is too large to send through this page. Choose it with "Choose files…" instead.`
              : `${phase.name} is too large to send through this page. ${pathImportHint(importFolders)}`}
          </p>
        ) : null}
        {phase.step === 'unread' ? (
          <p role="alert" className="message message-error">
            {phase.name}: {phase.message}
          </p>
        ) : null}
        {phase.step === 'failed' ? <ErrorMessage error={phase.error} /> : null}
        {outcome?.status === 'cancelled' ? <p role="status">Import cancelled; nothing was staged.</p> : null}
        {outcome?.status === 'refused' ? (
          <div role="alert" className="message message-error">
            <p className="message-summary">{outcomeName} cannot be imported; nothing was staged.</p>
            <ul className="problem-list">
              {outcome.problems.map((problem, i) => (
                <li key={i}>{problem.text}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {outcome?.status === 'staged' ? (
          <p role="status" className="message" ref={outcomeRef} tabIndex={-1}>
            {`✓ Imported ${plural(outcome.orders, 'order')} from ${outcomeName}: `}
            {`${outcome.valid.toLocaleString('en-GB')} valid, ${invalidInWords(outcome.invalid, outcome.notOrders, 'with errors')}.`}{' '}
            Review them below.
          </p>
        ) : null}
        {senderWarning ? (
          <p role="status" className="message">
            {senderWarning}
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
          onReimport={(next) => reimport(next ?? settings)}
        />
      ) : null}
      {summary && summary.format === 'csv' && (summary.profile === 'suggested' || summary.candidateHeader) ? (
        <MappingStep
          key={`mapping-${outcome?.status === 'staged' ? outcome.batchId : 'refused'}`}
          summary={summary}
          batchId={outcome?.status === 'staged' ? outcome.batchId : undefined}
          onSaved={(profileName, warning) => {
            setSenderWarning(warning);
            profiles.reload();
            reimport({ ...settings, profile: profileName });
          }}
        />
      ) : null}
      {summary && summary.format === 'hl7' ? (
        <Hl7MappingStep
          key={`hl7-mapping-${outcome?.status === 'staged' ? outcome.batchId : 'refused'}`}
          summary={summary}
          batchId={outcome?.status === 'staged' ? outcome.batchId : undefined}
          environment={environment}
          onSaved={(profileName, warning) => {
            setSenderWarning(warning);
            profiles.reload();
            // Only this re-import names the profile: the next file from the same sender finds it by itself.
            if (lastSource.current) void runImport(lastSource.current, { ...settings, profile: profileName });
          }}
        />
      ) : null}
      {openBatchId !== undefined ? (
        <BatchPreview
          // Keys name what they are: siblings keyed by the same batch id confuse React into duplicating one.
          key={`preview-${openBatchId}`}
          batchId={openBatchId}
          environment={environment}
          openAtOrderId={open?.stagedOrderId}
          // The window goes to the grid unless a mapping step above it is what the admin needs first.
          bringIntoView={summary?.format !== 'hl7' && summary?.profile !== 'suggested'}
        />
      ) : null}
      <RecentBatches key={environment.id} environment={environment} openBatchId={openBatchId} onOpen={openBatch} />
    </section>
  );
}
