import type { Problem } from '../model/imported-order.js';
import { KNOWN_SEGMENTS } from './hl7-stream.js';
import { problem } from './problems.js';

/**
 * A file with no CSV header that is plainly something else: HL7 v2 in its XML encoding, XML or a web page, JSON (a
 * FHIR resource, an API's answer), HL7 segments with no MSH before them, or HL7 messages inside another export's
 * cells. It was refused as a CSV without a header, told to choose a mapping profile, which cannot read any of them;
 * this says what the file is and what to ask for. Only the sample (the first 64 KiB) is looked at.
 */

const SEGMENT = /^([A-Z][A-Z0-9]{2})\|/;
const LOOKED_AT_LINES = 50;

export function otherFormatProblem(file: string, sample: string): Problem | undefined {
  const text = sample.replace(/^\uFEFF/, '');
  const start = text.trimStart();
  const refuse = (code: string, what: string) => problem('error', file, {}, code, what);
  if (start.startsWith('<')) {
    const head = start.slice(0, 2000);
    if (/urn:hl7-org:v2xml|<MSH[.>]/.test(head)) {
      return refuse(
        'file.otherFormat',
        "The file is HL7 v2 in its XML encoding (<MSH>, <PID> elements), which Rx Batch does not read: ask the sender for the messages in HL7's usual form, segments of fields separated by | (MSH|^~\\&|…), one segment per line.",
      );
    }
    const page = /^<(?:!doctype\s+html|html)[\s>]/i.test(start);
    return refuse(
      'file.otherFormat',
      page
        ? 'The file is a web page (HTML), not a CSV or HL7 v2 file (a page saved from a browser, or an error page downloaded in place of the export?): export the orders from the clinic system as CSV or HL7 again.'
        : 'The file is XML, not a CSV or HL7 v2 file, which are what Rx Batch reads: export the orders from the clinic system as CSV (one row per item) or as HL7 v2 messages.',
    );
  }
  if (/^[{[]\s*["{[]/.test(start) || start === '{}' || start === '[]') {
    const fhir = /"resourceType"\s*:/.test(start.slice(0, 65536));
    return refuse(
      'file.otherFormat',
      `The file is JSON${fhir ? ' (a FHIR resource)' : ''}, not a CSV or HL7 v2 file, which are what Rx Batch reads: export the orders from the clinic system as CSV (one row per item) or as HL7 v2 messages.`,
    );
  }
  const lines = text
    .split(/\r\n|\r|\n/, LOOKED_AT_LINES * 4)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, LOOKED_AT_LINES);
  const names = lines.flatMap((line) => SEGMENT.exec(line)?.[1] ?? []);
  if (names.length >= 2 && names.length * 4 >= lines.length * 3 && names.some((name) => KNOWN_SEGMENTS.has(name))) {
    const shown = [...new Set(names)].slice(0, 6).join(', ');
    return refuse(
      'hl7.noMessageHeader',
      `The file holds HL7 segments (${shown}) but no MSH header, with which every HL7 message starts and which says how its fields are separated and what kind of message it is, so no message can be read: the file may have lost its start (cut, or copied from the middle of a log). Ask the sender for the whole message.`,
    );
  }
  const at = lines.findIndex((line) => /MSH\|\^~/.test(line) && !line.startsWith('MSH|'));
  if (at >= 0) {
    return refuse(
      'file.otherFormat',
      `The file holds HL7 messages inside another format (an 'MSH|^~' header in the middle of a line, as in a CSV or database export of messages), not an HL7 file: export the messages themselves, one segment per line, or the orders as CSV.`,
    );
  }
  return undefined;
}
