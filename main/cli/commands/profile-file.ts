import { readRegularFileSync } from '../../core/platform/read-regular-file.js';
import { z } from 'zod';
import { mappingProfileSchema, type MappingProfile } from '../../core/model/mapping-profile.js';
import { StagingError } from '../../core/staging/staging-deps.js';
import { stagingFor } from '../../core/staging/staging-handlers.js';
import { protoKeyPath } from '../../transport/dispatch.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError } from '../cli-errors.js';
import { openExportFile } from '../export-file.js';

/**
 * A mapping profile as a file, to move it from the machine where it was made (the app's Import screen, which saves
 * CSV layouts and HL7 senders alike) to another data directory, such as the server that runs `serve`, where
 * there is no window to make one: `profile export NAME FILE`, then `profile import FILE [--name NAME]`. The file
 * carries the profile and the header cells it was saved from, so a CSV with that header is still read with it
 * unasked, and an HL7 sender's binding (clinics, peers) goes with it.
 */

const FORMAT = 'rx-batch mapping profile';
/** A profile with every template column mapped and long value maps is a few hundred KB at most. */
const MAX_FILE_BYTES = 1024 * 1024;

const profileFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  profile: mappingProfileSchema,
  headerCells: z.array(z.string().max(500)).max(1000).nullable(),
});

export async function profileExport(ctx: CliContext, name: string, path: string): Promise<number> {
  const saved = ctx.services.store.mappingProfiles.get(name);
  if (!saved) throw new InputError(`there is no profile "${name}" (rx-batch profile list)`);
  const document = { format: FORMAT, version: 1, profile: saved.profile, headerCells: saved.headerCells };
  const handle = await openExportFile(path);
  try {
    await handle.writeFile(`${JSON.stringify(document, null, 2)}\n`);
  } finally {
    await handle.close();
  }
  ctx.line(`Wrote profile '${name}' to ${path}; on the other machine: rx-batch profile import FILE`);
  return EXIT.ok;
}

function readProfileFile(path: string): z.infer<typeof profileFileSchema> {
  let text: string;
  try {
    text = readRegularFileSync(path, MAX_FILE_BYTES, 'a profile file').toString('utf8');
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new InputError(`${path} is not JSON: a profile file is what rx-batch profile export writes`);
  }
  // Keys become object keys of the saved profile and, through it, of every import: none may name a prototype.
  const protoKey = protoKeyPath(value);
  if (protoKey !== undefined) throw new InputError(`${path}: a key named __proto__ is not accepted (${protoKey})`);
  const checked = profileFileSchema.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : 'the file';
    throw new InputError(`${path}: ${where}: ${issue.message} (a profile file is what rx-batch profile export writes)`);
  }
  return checked.data;
}

export function profileImport(ctx: CliContext, path: string, name?: string): number {
  const file = readProfileFile(path);
  const renamed = name === undefined ? undefined : mappingProfileSchema.shape.name.safeParse(name);
  if (renamed && !renamed.success) throw new InputError(`--name: ${renamed.error.issues[0]!.message}`);
  const profile: MappingProfile = { ...file.profile, ...(renamed ? { name: renamed.data } : {}) };
  const replaced = ctx.services.store.mappingProfiles.get(profile.name) !== undefined;
  let saved;
  try {
    saved = stagingFor(ctx.services).saveProfile(profile, undefined, file.headerCells);
  } catch (error) {
    if (error instanceof StagingError) throw new InputError(error.message);
    throw error;
  }
  if (ctx.options.json) ctx.json({ name: saved.name, profile: saved.profile, senderWarning: saved.senderWarning });
  else {
    ctx.line(`${replaced ? 'Replaced' : 'Saved'} profile '${saved.name}' from ${path}.`);
    if (saved.senderWarning) ctx.warn(`warning: ${saved.senderWarning.message}`);
  }
  return saved.senderWarning ? EXIT.attention : EXIT.ok;
}
