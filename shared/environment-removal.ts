import { z } from 'zod';

/**
 * What removing an environment would do, said before it is done (issue #13: nothing queued is lost silently).
 * Removal is refused while anything of the environment is unfinished (`waiting` not all zero); orders already sent
 * keep their history and audit entries, but their statuses are no longer checked.
 */
export const environmentRemovalSchema = z
  .object({
    environmentId: z.string(),
    name: z.string(),
    /** False for the app's own sandbox, or while `waiting` counts anything. */
    removable: z.boolean(),
    /** Unfinished work that blocks removal, counted. */
    waiting: z
      .object({
        /** Queued, held or ready: not sent yet. */
        unsent: z.number().int().nonnegative(),
        sending: z.number().int().nonnegative(),
        inDoubt: z.number().int().nonnegative(),
        /** Cancel requests not yet answered by the service. */
        cancelsOpen: z.number().int().nonnegative(),
        /** Batches in Preview with orders neither accepted nor discarded. */
        stagedBatches: z.number().int().nonnegative(),
        /** Files being imported into it right now. */
        importing: z.number().int().nonnegative(),
      })
      .strict(),
    /** Orders at the service whose statuses would no longer be checked (created, cancel refused). */
    tracked: z.number().int().nonnegative(),
    /** Every order of the environment: kept, with its history and audit entries. */
    kept: z.number().int().nonnegative(),
    /** The whole of it in sentences for a person: what removing does, or why it cannot be removed now. */
    message: z.string().max(2000),
  })
  .strict();
export type EnvironmentRemoval = z.infer<typeof environmentRemovalSchema>;

const onEnvironment = z.object({ environmentId: z.string().min(1).max(40) }).strict();

export const environmentRemovalCalls = {
  /** What removing the environment would do now (nothing is changed). */
  'environments.removal': { input: onEnvironment, output: environmentRemovalSchema },
  /**
   * Removes the environment: refused (`failed`, with the sentence of `environments.removal`) while anything of it is
   * unfinished, and, in the desktop app, unless the admin confirms in a native dialog. Its sending and status checks
   * stop, its saved sign-in and client secret are deleted, and it is audited (`environments.changed` follows).
   */
  'environments.remove': {
    input: onEnvironment,
    output: z.object({ removed: environmentRemovalSchema }).strict(),
  },
  /** Remembers the environment chosen on screen, for the next start. */
  'environments.choose': { input: onEnvironment, output: z.object({ environmentId: z.string() }).strict() },
  /** The environment chosen last (null: none yet, or it was removed), for the screen's start. */
  'environments.chosen': {
    input: z.object({}).strict(),
    output: z.object({ environmentId: z.string().nullable() }).strict(),
  },
} as const;
