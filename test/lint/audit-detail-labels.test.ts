import { describe, expect, it } from 'vitest';
import { AUDIT_DETAIL_KEYS } from '../../main/core/model/audit-details.js';
import { detailsLine } from '../../renderer/src/features/log/audit-labels.js';

/**
 * The Log screen names every detail an entry may hold in words: a stored key such as `uncheckedCount` or `route`
 * means nothing to an admin reading the record (or to the auditor they show it to).
 */
describe('log detail labels', () => {
  it.each(AUDIT_DETAIL_KEYS)('%s is shown in words', (key) => {
    expect(detailsLine({ [key]: 1 })).not.toMatch(/[a-z][A-Z]/);
  });
});
