import type { CallHandlers } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import type { senderBindingCalls, SenderBindingView } from '../../../shared/sender-binding-contract.js';
import type { AppServices } from '../app-services.js';
import { bindingConfirmQuestion } from '../confirm-question.js';
import type { DesktopIntegration } from '../desktop-handlers.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { profileSender, readBindingList, type BindingKind } from '../model/sender-binding-input.js';
import { saveProfileAudited } from '../staging/profile-writes.js';
import { bindingQuestion } from './binding-question.js';
import type { SavedProfile } from '../store/mapping-profiles-repo.js';

/**
 * The Intake screen's view of live intake's sender binding (finding 27): each HL7 profile's peers and clinics, and
 * setting them with the CLI's rules (`profile add-hl7 --peer/--clinic`). Only the binding changes: the profile's
 * mapping, sender and header cells are saved as they were.
 */

type BindingCallName = keyof typeof senderBindingCalls;

function toView(saved: SavedProfile): SenderBindingView | undefined {
  const { profile } = saved;
  const sender = profileSender(profile);
  if (sender === undefined) return undefined;
  return {
    profile: profile.name,
    sender,
    messageType: profile.hl7Sender?.messageType ?? '',
    clinics: profile.clinics ?? null,
    peers: profile.peers ?? null,
    updatedAt: saved.updatedAt,
  };
}

const LABEL: Record<BindingKind, string> = { clinics: 'Clinics', peers: 'Peers' };

/** The list as the profile keeps it (undefined: unbound), or invalid input naming the entry and why. */
function checked(kind: BindingKind, values: readonly string[]): string[] | undefined {
  const list = readBindingList(kind, values);
  if (list.ok) return list.values;
  throw new ContractError({ code: 'invalid-input', message: `${LABEL[kind]}: ${list.problem}` });
}

export function buildBindingHandlers(
  app: AppServices,
  desktop?: Pick<DesktopIntegration, 'confirm'>,
): Pick<CallHandlers, BindingCallName> {
  const profiles = app.store.mappingProfiles;
  return {
    'profiles.bindings': () => Promise.resolve(profiles.list().flatMap((saved) => toView(saved) ?? [])),
    'profiles.setBinding': async (input) => {
      const before = profiles.get(input.profile);
      if (!before) {
        throw new ContractError({ code: 'invalid-input', message: `There is no profile "${input.profile}".` });
      }
      if (!before.profile.hl7Sender) {
        throw new ContractError({
          code: 'invalid-input',
          message: `"${input.profile}" is a CSV profile: only an HL7 profile's sender is bound to peers and clinics.`,
        });
      }
      const clinics = checked('clinics', input.clinics);
      const peers = checked('peers', input.peers);
      const { clinics: _clinics, peers: _peers, ...rest } = before.profile;
      const profile: MappingProfile = { ...rest, ...(clinics ? { clinics } : {}), ...(peers ? { peers } : {}) };
      // Script in the page must not loosen it alone: the desktop asks the admin (browser mode has no such dialog).
      const question = desktop && bindingQuestion(before.profile, profile);
      if (question && !(await desktop.confirm(bindingConfirmQuestion(question)))) {
        throw new ContractError({
          code: 'forbidden',
          message: `Who may send as ${question.sender} is unchanged: accepting more from it was not confirmed.`,
        });
      }
      return toView(saveProfileAudited(app.store, profile))!;
    },
  };
}
