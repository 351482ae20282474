import { z } from 'zod';

/**
 * The desktop calls of the contract (spread into `calls` and `events` in contract.ts): native open dialogs, files
 * the operating system handed to the app (command line, a second launch, macOS "Open with", the File menu), and
 * opening the data folder. Only the desktop app can do these; browser mode and direct calls answer `desktop-only`
 * with a sentence saying what to do instead, and `app.info`'s `desktop` says beforehand which are there.
 */

/** A file that was offered but will not be imported, by its name only (never its folder). */
export const skippedFileSchema = z.object({ name: z.string(), reason: z.string() }).strict();
export type SkippedFile = z.infer<typeof skippedFileSchema>;

/** Absolute paths of regular CSV/HL7 files to import with `import.file`, and what was passed over and why. */
export const importFilesSchema = z
  .object({ paths: z.array(z.string().min(1).max(4096)).max(1000), skipped: z.array(skippedFileSchema).max(1000) })
  .strict();
export type ImportFiles = z.infer<typeof importFilesSchema>;

/** What an open dialog is for: files to import, a folder of them to import, or a folder to watch (live intake). */
export const choosePurposeSchema = z.enum(['import', 'import-folder', 'intake-folder']);
export type ChoosePurpose = z.infer<typeof choosePurposeSchema>;

const desktopOnlySchema = z
  .object({ ok: z.literal(false), reason: z.literal('desktop-only'), message: z.string() })
  .strict();

export const desktopCalls = {
  /**
   * Shows the native open dialog: CSV/HL7 files (`import`), or a folder whose CSV/HL7 files are imported, not
   * those in folders inside it (`import-folder`). Cancelling gives no paths. Each path is then allowed in
   * `import.file` over this window's IPC; a path the admin did not choose is refused there. `intake-folder`: one
   * folder to watch, its own path handed back and allowed for `intake.start` (shared/intake-contract.ts).
   */
  'files.choose': {
    input: z.object({ purpose: choosePurposeSchema }).strict(),
    output: z.discriminatedUnion('ok', [importFilesSchema.extend({ ok: z.literal(true) }), desktopOnlySchema]),
  },
  /**
   * Takes the files the operating system or the File menu asked to import (announced by `import.requested`);
   * each is handed out once. Empty where there are none, as always in browser mode.
   */
  'import.takeRequested': { input: z.object({}).strict(), output: importFilesSchema },
  /** Opens the data directory in the system's file manager. */
  'app.openDataFolder': {
    input: z.object({}).strict(),
    output: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true) }).strict(),
      z.object({ ok: z.literal(false), reason: z.enum(['desktop-only', 'failed']), message: z.string() }).strict(),
    ]),
  },
} as const;

export const desktopEvents = {
  /** Files are waiting to be imported (`import.takeRequested` takes them): the app shows the Import screen. */
  'import.requested': z.object({ files: z.number().int().nonnegative() }).strict(),
} as const;
