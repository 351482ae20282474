import { z } from 'zod';

/** A dm+d code (a SNOMED CT identifier): 1 to 18 digits, no leading zero, kept as text in memory. */
export const DMD_CODE_PATTERN = /^[1-9]\d{0,17}$/;

/**
 * Accepts a digit string, or a safe integer as parsed from JSON, and yields the digit string. Numbers beyond
 * 2^53 are refused: they have already lost digits, and sending them would order the wrong product.
 */
export const dmdCodeSchema = z
  .union([
    z.string().max(18).regex(DMD_CODE_PATTERN, 'a dm+d code is 1 to 18 digits, not starting with 0'),
    z
      .number()
      .int()
      .positive()
      .refine(Number.isSafeInteger, 'a dm+d code beyond 2^53 has lost digits; send it as digits'),
  ])
  .transform((code) => String(code));

export type DmdCode = z.output<typeof dmdCodeSchema>;
