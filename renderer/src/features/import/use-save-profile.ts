import { useState } from 'react';
import type { CallInput } from '../../../../shared/contract.js';
import { useApi } from '../../api/api-context.js';

type Profile = CallInput<'profiles.save'>['profile'];

/**
 * Saving a mapping profile from either mapping step (CSV or HL7): the call, its progress and its failure. Empty
 * constants are left out, so a blank cell never overrides what the file says. On success the caller imports the
 * file again with the saved profile, and is told when other saved profiles are for the same HL7 sender (its files
 * then ask which profile to use): `senderWarning` is the core's sentence for it, else null. `headerCells`: the row
 * mapped as the header of a file refused for want of one (no batch to take it from), so the next file with that
 * header is read with the profile unasked.
 */
export function useSaveProfile(
  batchId: number | undefined,
  onSaved: (profileName: string, senderWarning: string | null) => void,
  headerCells?: readonly string[],
) {
  const api = useApi();
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<unknown>();

  async function save(profile: Profile): Promise<void> {
    setSaving(true);
    setFailure(undefined);
    try {
      const constants = Object.entries(profile.constants ?? {}).filter(([, value]) => value.trim() !== '');
      const saved = await api.call('profiles.save', {
        profile: { ...profile, name: profile.name.trim(), constants: Object.fromEntries(constants) },
        ...(batchId !== undefined ? { fromBatchId: batchId } : headerCells ? { headerCells: [...headerCells] } : {}),
      });
      onSaved(saved.name, saved.senderWarning?.message ?? null);
    } catch (error) {
      setFailure(error);
    } finally {
      setSaving(false);
    }
  }

  return { saving, failure, save };
}
