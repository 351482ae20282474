/**
 * Text for a terminal. What the CLI prints quotes clinic files (cell values, file names) and services' messages,
 * written by other people's software; a control character in them is a terminal command (set the title, write the
 * clipboard with OSC 52, erase or rewrite a line, move the cursor). Each one except the line breaks and tabs the
 * CLI's own lines use is shown as a visible `\u00HH` escape instead (docs/security.md, finding 14), which also keeps a JSON line valid JSON.
 */

// Matching control characters is the point.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function terminalText(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
