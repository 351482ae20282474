import { z } from 'zod';

/**
 * Live intake's sender binding from the app (docs/security.md, finding 27; spread into `calls` in contract.ts): an
 * HL7 profile's `peers` (the addresses its sender may connect from) and `clinics` (the clinic codes it may act
 * for), shown and set on the Intake screen as `rx-batch profile add-hl7 --peer/--clinic` sets them. The core checks
 * each entry with the CLI's rules (main/core/model/sender-binding-input.ts) and says which entry is wrong and why;
 * the bounds here only keep a hostile caller's lists small (duplicates are dropped before the core's own maximum).
 */

const BINDING_ENTRIES_MAX = 200;
const entriesSchema = z.array(z.string().max(200)).max(BINDING_ENTRIES_MAX);

export const senderBindingViewSchema = z
  .object({
    /** The HL7 profile's name. */
    profile: z.string(),
    /** `APP^FACILITY` (MSH-3^MSH-4), or `APP` alone. */
    sender: z.string(),
    messageType: z.string(),
    /** Null: unbound, any clinic. */
    clinics: z.array(z.string()).nullable(),
    /** Null: unbound, any peer the listener admits. */
    peers: z.array(z.string()).nullable(),
    updatedAt: z.string(),
  })
  .strict();
export type SenderBindingView = z.infer<typeof senderBindingViewSchema>;

export const senderBindingCalls = {
  /** Every HL7 profile's binding, by profile name. */
  'profiles.bindings': { input: z.object({}).strict(), output: z.array(senderBindingViewSchema) },
  /**
   * Sets an HL7 profile's binding, both lists as a whole: an empty list clears it (unbound). The rest of the
   * profile is kept as saved; saving the profile elsewhere (`profiles.save`) keeps the binding.
   */
  'profiles.setBinding': {
    input: z
      .object({ profile: z.string().trim().min(1).max(80), clinics: entriesSchema, peers: entriesSchema })
      .strict(),
    output: senderBindingViewSchema,
  },
} as const;
