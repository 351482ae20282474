import type { MappingProfile } from '../model/mapping-profile.js';
import { bindsSender, describeBinding, profileSender, sameSender } from '../model/sender-binding-input.js';
import type { SavedProfile } from '../store/mapping-profiles-repo.js';
import type { Store } from '../store/store.js';
import { StagingError } from './staging-deps.js';

/**
 * Every write of a mapping profile, so a change to live intake's sender binding (docs/security.md, finding 27) is
 * never silent: the binding before and after is audited (`intake.binding.changed`) in the save's own transaction,
 * whichever front end made it (the import screen's save, the Intake screen, the CLI's add-hl7 and remove).
 */

const BOUND_ACTION = 'intake.binding.changed';

/** The audit entry for a write that changes what binds a sender, or undefined when it binds nothing either side. */
function bindingChange(before: MappingProfile | undefined, after: MappingProfile | undefined) {
  const was = before && bindsSender(before) ? describeBinding(before) : undefined;
  const now = after && bindsSender(after) ? describeBinding(after) : undefined;
  if (was === undefined && now === undefined) return undefined;
  const binding = after ? describeBinding(after) : `profile ${before!.name} removed`;
  const previousBinding = before ? describeBinding(before) : `no profile ${after!.name}`;
  if (binding === previousBinding) return undefined;
  const sender = profileSender(after ?? before!) ?? '';
  return { actor: 'user' as const, action: BOUND_ACTION, details: { sender, binding, previousBinding } };
}

/**
 * A bound profile moved to another sender would leave the sender it bound open to any peer, for any clinic, with
 * nothing but a mapping saved: refused, naming both and what to do instead.
 */
function refuseSenderMove(before: MappingProfile | undefined, after: MappingProfile): void {
  if (!before || !bindsSender(before)) return;
  const was = profileSender(before);
  const now = profileSender(after);
  if (was === undefined || (now !== undefined && sameSender(was, now))) return;
  throw new StagingError(
    `"${before.name}" binds ${was} to its peers and clinics for live intake; saving it for ${now ?? 'no sender'} ` +
      `would leave ${was} unbound. Save this mapping under another name, or clear the binding on the Intake ` +
      'screen first.',
  );
}

/** Saves `profile` (the mapping profiles repo's save), audited when it changes a sender's binding. */
export function saveProfileAudited(
  store: Store,
  profile: MappingProfile,
  headerCells: readonly string[] | null = null,
): SavedProfile {
  const before = store.mappingProfiles.get(profile.name)?.profile;
  refuseSenderMove(before, profile);
  return store.inTransaction(() => {
    const saved = store.mappingProfiles.save(profile, headerCells);
    const change = bindingChange(before, saved.profile);
    if (change) store.audit.append(change);
    return saved;
  });
}

/** Removes a profile by name (false: there was none), audited when it bound its sender. */
export function removeProfileAudited(store: Store, name: string): boolean {
  return store.inTransaction(() => {
    const before = store.mappingProfiles.get(name)?.profile;
    if (!before || !store.mappingProfiles.delete(name)) return false;
    const change = bindingChange(before, undefined);
    if (change) store.audit.append(change);
    return true;
  });
}
