/** Rows of one order that name two patients (csv-drafts.ts): the file must give each its own clinic order id. */
export const TWO_PATIENTS = 'order.twoPatients';

/**
 * Problems only the import could see that no edit in the preview clears, not even replacing the whole body: the
 * order as imported cannot be made right here, only by importing the file again, fixed (reassess.ts).
 */
export const STICKY_IMPORT_PROBLEMS: ReadonlySet<string> = new Set([TWO_PATIENTS]);
