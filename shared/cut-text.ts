import { z } from 'zod';

/** At most `max` characters, not ending in half of a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

/** Text as it came, cut to `max` characters: for a service's words nothing matches on, shown or kept. */
export const cutTextSchema = (max: number) => z.string().transform((text) => cutText(text, max));
