import { basename, resolve } from 'node:path';
import { templateGuideText } from '../../core/importing/template-guide.js';
import { exampleTemplateCsv } from '../../core/staging/index.js';
import type { CliContext } from '../cli-context.js';
import { EXIT } from '../cli-errors.js';
import { openExportFile } from '../export-file.js';

/** Writes `text` to a file opened as every export is (no link followed, nobody else's file, 0600). */
async function writeText(file: string, text: string): Promise<void> {
  const handle = await openExportFile(resolve(file));
  try {
    await handle.write(text);
  } finally {
    await handle.close();
  }
}

/**
 * `template FILE [--guide FILE]`: the Import screen's "Download template" and "Column guide" without the app, so an
 * admin on a server starts from the same file (one example order the local sandbox knows). Both UTF-8 with a BOM,
 * so Excel and Notepad read them as UTF-8; the guide names the template by the name it was written under.
 */
export async function template(ctx: CliContext, file: string, guide: string | undefined): Promise<number> {
  await writeText(file, exampleTemplateCsv({ bom: true }));
  if (guide !== undefined) await writeText(guide, `\ufeff${templateGuideText(basename(file))}`);
  if (ctx.options.json) ctx.json({ template: file, ...(guide !== undefined ? { guide } : {}) });
  else {
    ctx.line(`Wrote the CSV template to ${file}: one row per prescribed item, with one example order.`);
    ctx.line(
      guide !== undefined
        ? `Wrote the column guide to ${guide}: what each column takes.`
        : `What each column takes: rx-batch template ${file} --guide columns.txt`,
    );
    ctx.line(`Fill it in, save it as CSV UTF-8, then: rx-batch import ${file} --env ENV`);
  }
  return EXIT.ok;
}
