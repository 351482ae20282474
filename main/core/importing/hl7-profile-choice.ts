import type { ProfileChoice } from '../../../shared/staging-views.js';
import { compileProfile, type CompiledProfile } from './compiled-profile.js';
import { HL7_VALUE_MAPS, checkHl7Overrides } from './hl7-field-map.js';
import { describeSender, profileForSender, profilesForSender, type Hl7Sender } from './hl7-sender.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { derivedOnce } from '../model/deep-frozen.js';
import { quote } from './problems.js';
import type { Problem } from '../model/imported-order.js';
import type { ImportOptions } from '../model/import-options.js';

/**
 * Which profile an HL7 file is read with: the one named for the import always wins; else the one saved for the
 * file's sender, when exactly one is; else none (the standard field map). Several for one sender is not guessed
 * at: the report names them and the admin chooses.
 */

export interface Hl7ProfileChoice {
  profile: MappingProfile | undefined;
  compiled: CompiledProfile;
  /** The profile's own problems (unknown fields, bad HL7 paths), once per file. */
  problems: Problem[];
  choice: ProfileChoice;
  sender: Hl7Sender | undefined;
}

const STANDARD_MAP = 'the standard HL7 field map was used';

function decide(
  options: Pick<ImportOptions, 'profile' | 'profiles'>,
  sender: Hl7Sender | undefined,
): { profile?: MappingProfile; choice: ProfileChoice } {
  if (options.profile) {
    const profile = options.profile;
    return {
      profile,
      choice: { via: 'explicit', reason: `profile ${quote(profile.name)} was chosen for this import` },
    };
  }
  if (!options.profiles) return { choice: { via: 'none', reason: `no saved profile was asked for: ${STANDARD_MAP}` } };
  if (!sender) {
    return {
      choice: { via: 'none', reason: `the file names no sending application or facility: ${STANDARD_MAP}` },
    };
  }
  const match = profileForSender(sender, options.profiles);
  const from = describeSender(sender);
  if (match.kind === 'one') {
    const profile = match.profile;
    return { profile, choice: { via: 'sender', reason: `profile ${quote(profile.name)} was chosen for ${from}` } };
  }
  if (match.kind === 'several') {
    return {
      choice: {
        via: 'several',
        reason: `profiles ${match.names.map(quote).join(', ')} are all saved for ${from}: choose one (${STANDARD_MAP})`,
        candidates: match.names,
      },
    };
  }
  return { choice: { via: 'none', reason: `no saved profile is for ${from}: ${STANDARD_MAP}` } };
}

const COMPILED = new WeakMap<object, CompiledProfile>();
let compiledDefault: CompiledProfile | undefined;

function compileHl7(profile: MappingProfile | undefined): CompiledProfile {
  return compileProfile(
    {
      name: profile?.name ?? 'HL7 default',
      constants: profile?.constants ?? {},
      valueMaps: profile?.valueMaps ?? {},
      dateFormat: 'hl7',
    },
    '',
    HL7_VALUE_MAPS,
  );
}

/**
 * The profile compiled for HL7: once per stored (deep-frozen) profile, and once for none, since the intake reads a
 * message at a time; the compiled form is only read. Its problems name `file`.
 */
function compiledFor(profile: MappingProfile | undefined, file: string): CompiledProfile {
  const compiled =
    profile === undefined ? (compiledDefault ??= compileHl7(undefined)) : derivedOnce(COMPILED, profile, compileHl7);
  return compiled.problems.length === 0
    ? compiled
    : { ...compiled, problems: compiled.problems.map((problem) => ({ ...problem, file })) };
}

export function chooseHl7Profile(
  options: Pick<ImportOptions, 'profile' | 'profiles'>,
  sender: Hl7Sender | undefined,
  file: string,
): Hl7ProfileChoice {
  const { profile, choice } = decide(options, sender);
  const compiled = compiledFor(profile, file);
  return {
    profile,
    compiled,
    problems: [...compiled.problems, ...checkHl7Overrides(profile?.hl7FieldMap, file)],
    choice,
    sender,
  };
}

/** Saving an HL7 profile for a sender that other saved profiles are for too. */
export interface SameSenderWarning {
  /** The other profiles' names, sorted. */
  otherProfiles: string[];
  /** One sentence for the admin: who they are, and what it means for the next file from that sender. */
  message: string;
}

/**
 * Checks a just-saved profile against the saved ones: when others are for the same sender, files from it are no
 * longer read with a profile automatically (several fit: the import asks), and the admin should hear that while
 * saving, not at the next import.
 */
export function sameSenderWarning(
  saved: MappingProfile,
  profiles: readonly MappingProfile[],
): SameSenderWarning | null {
  const sender = saved.hl7Sender;
  if (!sender) return null;
  const others = profilesForSender(sender, profiles)
    .map((profile) => profile.name)
    .filter((name) => name !== saved.name)
    .sort();
  if (others.length === 0) return null;
  const named = others.length === 1 ? `profile ${quote(others[0])} is` : `profiles ${others.map(quote).join(', ')} are`;
  return {
    otherProfiles: others,
    message:
      `${named} also saved for ${describeSender(sender)}: files from this sender will ask which profile to use ` +
      `until only one is saved for it`,
  };
}
