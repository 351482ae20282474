/**
 * Text for a terminal. What the CLI prints quotes clinic files (cell values, file names) and services' messages,
 * written by other people's software; a control character in them is a terminal command (set the title, write the
 * clipboard with OSC 52, erase or rewrite a line, move the cursor). Each one except the line breaks and tabs the
 * CLI's own lines use is shown as a visible `\u00HH` escape instead (docs/security.md, finding 14), which also keeps a JSON line valid JSON.
 */

// Matching control characters is the point.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

const visible = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

export function terminalText(text: string): string {
  return text.replace(CONTROL, visible);
}

// eslint-disable-next-line no-control-regex
const LINE_CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/**
 * One line of the CLI's output: as terminalText, and a line break in it shown as `\u000a` too. A cell or a file
 * name holding a line break otherwise wrote a line of its own choosing (`Staged batch 1: 1 order, all valid.`)
 * among the CLI's, in `import` problems, `batch show` and error lines (docs/security.md, finding 33).
 */
export function terminalLine(text: string): string {
  return text.replace(LINE_CONTROL, visible);
}
