import { createHash } from 'node:crypto';
import { z } from 'zod';
import { hl7SenderSchema } from '../../../shared/staging-views.js';
import { TEMPLATE_COLUMNS } from './field-catalogue.js';
import { peerRuleProblem } from './peer-address.js';

/**
 * A named mapping profile: how one clinic system's file layout maps onto our fields. Keys of `columns`,
 * `constants` and `valueMaps` are template column names (or body paths, see field-catalogue.ts). Saved by the
 * app and chosen automatically next time by the file's header fingerprint (CSV) or its sender (HL7).
 */

export const DATE_FORMATS = ['iso', 'dd/MM/yyyy', 'd/M/yy', 'dd-MMM-yyyy', 'MM/dd/yyyy'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** At most this many clinic codes, and peer rules, bind one HL7 sender (main/core/intake/sender-binding.ts). */
export const SENDER_CLINICS_MAX = 100;
export const SENDER_PEERS_MAX = 32;

const clinicCodeSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine((code) => !/\p{Cc}/u.test(code), 'a clinic code holds no control characters');
const peerRuleSchema = z
  .string()
  .trim()
  .max(50)
  .superRefine((rule, ctx) => {
    const problem = peerRuleProblem(rule);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const mappingProfileSchema = z.object({
  name: z.string().trim().min(1).max(80),
  headerFingerprint: z.string().optional(),
  /** template column (or body path) → the file's header text */
  columns: z.record(z.string(), z.string()),
  /**
   * template column → the 1-based position of its column in the header row, for a header the file has more than
   * once (`DOB` in columns 6 and 14): which one to read. Without it, a mapped header that appears twice stops the
   * import (`csv.duplicateHeader`) rather than read the first silently.
   */
  columnPositions: z.record(z.string(), z.number().int().min(1).max(100_000)).optional(),
  /** template column → a value used when the column is not mapped or is blank in a row */
  constants: z.record(z.string(), z.string()),
  /** template column → (file value → our value), e.g. `gender: { M: 'Male' }` */
  valueMaps: z.record(z.string(), z.record(z.string(), z.string())),
  /** How dates are written. Absent: ISO and unambiguous dates are read, ambiguous day/month ones are errors. */
  dateFormat: z.enum(DATE_FORMATS).optional(),
  /** HL7: template column → a field path such as `MSH-4` or `RXE-2.4`, overriding the default map. */
  hl7FieldMap: z.record(z.string(), z.string()).optional(),
  /** HL7: the sender (MSH-3, MSH-4, message type) of the import it was saved from; chosen for its files. */
  hl7Sender: hl7SenderSchema.optional(),
  /**
   * HL7 live intake: the clinic codes this sender may order and cancel for. Absent: any clinic (the default, as
   * before; `serve` warns). Orders and cancels for another clinic are staged for review, not acted on.
   */
  clinics: z.array(clinicCodeSchema).min(1).max(SENDER_CLINICS_MAX).optional(),
  /** HL7 live intake: the peer addresses or CIDR blocks this sender's messages may come from. Absent: any peer. */
  peers: z.array(peerRuleSchema).min(1).max(SENDER_PEERS_MAX).optional(),
});
export type MappingProfile = z.infer<typeof mappingProfileSchema>;

export const normaliseHeader = (header: string): string => header.toLowerCase().replace(/[^a-z0-9+]/g, '');

/**
 * Identifies a file layout by its header cells: normalised (case, spaces, punctuation) and sorted, so re-ordered
 * or re-spaced columns of the same export still match.
 */
export function headerFingerprint(headers: readonly string[]): string {
  const cells = headers
    .map(normaliseHeader)
    .filter((cell) => cell.length > 0)
    .sort();
  return createHash('sha256').update(cells.join('\u0000')).digest('hex').slice(0, 16);
}

/** Our own template: every column under its own name, ISO dates, no value maps. */
export const TEMPLATE_PROFILE: MappingProfile = {
  name: 'template',
  headerFingerprint: headerFingerprint([...TEMPLATE_COLUMNS]),
  columns: Object.fromEntries(TEMPLATE_COLUMNS.map((column) => [column, column])),
  constants: {},
  valueMaps: {},
  dateFormat: 'iso',
};
