import { z } from 'zod';
import { insecureUrlProblem } from './loopback.js';

/** What the UI sees of sign-in: its state per environment, its changes, and a device sign-in's code and page. */

const isoTime = z.string().min(1).max(40);

export const signInStatusSchema = z.object({
  environmentId: z.string(),
  grant: z.enum(['device', 'client_credentials']),
  signedIn: z.boolean(),
  expiresAt: isoTime.nullable(),
  subject: z.string().nullable(),
  device: z
    .object({ state: z.enum(['waiting', 'slow-down']), expiresAt: isoTime, intervalSeconds: z.number() })
    .nullable(),
});

export const signInChangeSchema = z.object({
  environmentId: z.string(),
  state: z.enum(['waiting', 'slow-down', 'signed-in', 'denied', 'expired', 'cancelled', 'failed', 'signed-out']),
  message: z.string(),
  intervalSeconds: z.number().optional(),
});

const SAFE_LINK = 'a sign-in page must be https (plain http only on this computer)';
const isSafeLink = (text: string) => insecureUrlProblem(text, 'sign-in page') === undefined;

/** The longest user code shown: a longer one is refused where the identity server's answer is read (finding 71). */
export const USER_CODE_MAX = 40;

export const deviceSignInStartSchema = z.object({
  userCode: z.string().min(1).max(USER_CODE_MAX),
  /** Shown to the admin as a link: https, or plain http to this computer only (the local sandbox). */
  verificationUri: z.url({ protocol: /^https?$/ }).refine(isSafeLink, SAFE_LINK),
  verificationUriComplete: z
    .url({ protocol: /^https?$/ })
    .refine(isSafeLink, SAFE_LINK)
    .nullable(),
  expiresAt: isoTime,
  /** Seconds between polls. */
  interval: z.number().positive(),
});
