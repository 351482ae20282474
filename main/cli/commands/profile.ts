import { FIELDS } from '../../core/model/field-catalogue.js';
import type { MappingProfile } from '../../core/model/mapping-profile.js';
import { BINDING_MAX, bindingText, readBindingList, type BindingKind } from '../../core/model/sender-binding-input.js';
import { removeProfileAudited } from '../../core/staging/profile-writes.js';
import { StagingError } from '../../core/staging/staging-deps.js';
import { stagingFor } from '../../core/staging/staging-handlers.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError, UsageError } from '../cli-errors.js';

/**
 * Mapping profiles without the UI, for live intake: `profile add-hl7 NAME --sender APP^FACILITY [--message-type
 * RDE^O11] --set FIELD=VALUE…` saves an HL7 profile for one sender (the values an order message cannot carry:
 * payment type, courier, currency…), which every message or file from that sender is then read with;
 * `--clinic CODE`/`--peer ADDR` bind the sender for live intake (main/core/intake/sender-binding.ts); `profile
 * list`; `profile remove NAME`.
 */

export interface AddHl7Args {
  name: string;
  sender: string;
  messageType?: string;
  set: string[];
  /** Clinic codes the sender may order and cancel for (none given: any, or the ones the profile had). */
  clinics?: string[];
  /** Peer addresses or CIDR blocks its messages may come from (none given: any, or the ones the profile had). */
  peers?: string[];
}

/** A `--set` key: a template column (`paymentType`) or a body path (`prescription.paymentType`). */
function fieldOf(key: string) {
  return FIELDS.find((field) => field.column === key || field.path === key);
}

export function profileAddHl7(ctx: CliContext, args: AddHl7Args): number {
  const [application = '', facility, ...rest] = args.sender.split('^');
  if (application.trim() === '' || rest.length > 0) {
    throw new UsageError('--sender is APP^FACILITY (MSH-3 sending application, MSH-4 facility), or APP alone');
  }
  const messageType = args.messageType ?? 'RDE^O11';
  if (!/^[A-Z0-9]{3}\^[A-Z0-9]{3}$/.test(messageType)) {
    throw new UsageError('--message-type is TYPE^TRIGGER, e.g. RDE^O11');
  }
  const constants: Record<string, string> = {};
  for (const entry of args.set) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`--set takes FIELD=VALUE, not "${entry}"`);
    const key = entry.slice(0, at).trim();
    const field = fieldOf(key);
    if (!field) throw new InputError(`--set ${key}: no such field (give a template column or a body path)`);
    constants[field.column] = entry.slice(at + 1);
  }
  const clinics = bindingList('--clinic', 'clinics', args.clinics ?? []);
  const peers = bindingList('--peer', 'peers', args.peers ?? []);
  const profile: MappingProfile = {
    name: args.name,
    columns: {},
    constants,
    valueMaps: {},
    hl7Sender: { application, facility: facility ?? '', messageType },
    ...(clinics ? { clinics } : {}),
    ...(peers ? { peers } : {}),
  };
  let saved;
  try {
    saved = stagingFor(ctx.services).saveProfile(profile);
  } catch (error) {
    if (error instanceof StagingError) throw new InputError(error.message);
    throw error;
  }
  if (ctx.options.json) ctx.json({ name: saved.name, profile: saved.profile, senderWarning: saved.senderWarning });
  else {
    ctx.line(`Saved HL7 profile '${saved.name}' for ${args.sender} (${messageType}).`);
    const kept = bindingText(saved.profile as MappingProfile);
    if (kept && (!clinics || !peers)) ctx.line(`Bound: ${kept} (\`profile remove\` first to drop what was kept).`);
    if (saved.senderWarning) ctx.warn(`warning: ${saved.senderWarning.message}`);
  }
  return saved.senderWarning ? EXIT.attention : EXIT.ok;
}

export function profileList(ctx: CliContext): number {
  const profiles = stagingFor(ctx.services).listProfiles();
  if (ctx.options.json) {
    ctx.json(profiles);
    return EXIT.ok;
  }
  if (profiles.length === 0) ctx.line('No saved profiles.');
  for (const view of profiles) {
    const sender = (view.profile as MappingProfile).hl7Sender;
    const constants = Object.entries((view.profile as MappingProfile).constants ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    const who = sender
      ? `HL7 from ${sender.application}${sender.facility ? `^${sender.facility}` : ''} (${sender.messageType})`
      : view.headerFingerprint
        ? 'CSV (by header)'
        : 'CSV';
    const bound = sender ? bindingText(view.profile as MappingProfile) || 'unbound (any clinic, any peer)' : '';
    ctx.line(`${view.name}\t${who}${constants ? `\t${constants}` : ''}${bound ? `\t${bound}` : ''}`);
  }
  return EXIT.ok;
}

export function profileRemove(ctx: CliContext, name: string): number {
  if (!removeProfileAudited(ctx.services.store, name)) throw new InputError(`there is no profile "${name}"`);
  ctx.line(`Removed profile '${name}'.`);
  return EXIT.ok;
}

/** A repeatable binding flag's values, trimmed and each once; undefined when none was given. */
function bindingList(flag: string, kind: BindingKind, values: readonly string[]): string[] | undefined {
  const list = readBindingList(kind, values);
  if (list.ok) return list.values;
  throw new UsageError(
    list.tooMany ? `${flag} is given at most ${BINDING_MAX[kind]} times` : `${flag}: ${list.problem}`,
  );
}
