import { decodedChunks, type Inspection } from './file-source.js';
import type { ImportSource } from './import-source.js';
import { finishOrder, type OrderSink } from './finish-order.js';
import type { OrderExtras } from '../model/provenance-table.js';
import { Hl7ParseError, parseHl7Message, type Hl7Message } from '../model/hl7-adapter.js';
import { derivedOnce } from '../model/deep-frozen.js';
import { chooseHl7Profile, type Hl7ProfileChoice } from './hl7-profile-choice.js';
import { MessageSenders, readHl7Sender } from './hl7-sender.js';
import { extractHl7Order, listSome } from './hl7-field-map.js';
import { isPlacerGroup } from './hl7-placer-group.js';
import { escapeProblems } from './hl7-escape-problems.js';
import { isAcceptedMessageType, messageTypeRefusal } from './hl7-message-types.js';
import { deceasedProblem } from './hl7-deceased.js';
import { orderStatusProblem } from './hl7-order-status.js';
import { processingIdProblem } from './hl7-processing-id.js';
import { compoundProblems } from './hl7-compound.js';
import { otherOrderText } from './hl7-other-orders.js';
import { sayWhereRequired } from './hl7-required.js';
import { NOT_TEXT } from './validate-order.js';
import {
  Hl7Splitter,
  Hl7StreamAbort,
  KNOWN_SEGMENTS,
  listLines,
  type SplitMessage,
  type StrayLine,
} from './hl7-stream.js';
import { problem, quote } from './problems.js';
import { UnusualSpaces, holdsUnusualSpace } from './unusual-spaces.js';
import type { ImportReport, ImportedOrder, Problem } from '../model/imported-order.js';
import type { ImportOptions } from '../model/import-options.js';

/**
 * HL7 import: each message becomes one order (or one cancel), handed on as soon as it is read, so a batch of any
 * size streams through. A message that cannot be an order still becomes an entry with its problem, so the preview
 * can show every message of the file.
 */

/** The entry of a message that cannot be an order: its one problem, so the preview still shows it. */
function unusable(source: ImportedOrder['source'] & { message: number }, code: string, text: string): ImportedOrder {
  return {
    clinicCode: null,
    clinicOrderId: null,
    body: {},
    valid: false,
    problems: [problem('error', source.file, { message: source.message }, code, text)],
    provenance: {},
    source,
  };
}

/** What a decoder puts where the bytes were not text in the file's encoding. */
const UNREADABLE = '\uFFFD';

const READABLE = new WeakMap<object, boolean>();

/** Whether no text of `value` (code lists, a profile) holds U+FFFD. */
function readableJson(value: unknown): boolean {
  return derivedOnce(READABLE, value, (held) => !JSON.stringify(held).includes(UNREADABLE));
}

/** The segments of an order message that say anything about the order; a message with none of them is no order. */
const ORDER_SEGMENTS: ReadonlySet<string> = new Set(['PID', 'ORC', 'RXE', 'RXO']);

/**
 * In a message with no order segment: an order segment's name and separator straight after a value (`…|2.5PID|`),
 * the segment breaks lost (an Epic RDE^O11 pasted into a web page reads `…|T|2.3PID|||…`). The text around it, or
 * undefined.
 */
function joinedSegment(segments: readonly string[], field: string): string | undefined {
  const names = [...ORDER_SEGMENTS, 'PV1', 'EVN', 'PD1', 'NTE', 'RXR', 'TQ1'];
  for (const segment of segments) {
    for (const name of names) {
      for (let at = segment.indexOf(`${name}${field}`, 4); at !== -1; at = segment.indexOf(`${name}${field}`, at + 1)) {
        if (segment.charAt(at - 1) !== field) return segment.slice(Math.max(0, at - 12), at + 4);
      }
    }
  }
  return undefined;
}

/**
 * Lines between a message's segments, or wrapped after one, that are not segments: left out of it, and said on its
 * order. One holding the field separator right after a segment, or starting with it, is the rest of a segment broken
 * onto its own line, so that segment's later fields are missing or cut: an error, never an order sent without them.
 */
function splitProblems(file: string, split: SplitMessage): Problem[] {
  const stray = split.stray;
  const frame = split.unclosedFrame ? [unclosedFrameProblem(file, split)] : [];
  if (!stray || stray.length === 0) return frame;
  const separator = split.segments[0]?.charAt(3) || '|';
  const wrapped = (s: StrayLine) => s.tail === true || s.text.startsWith(separator);
  const cut = stray.filter(wrapped);
  const other = stray.filter((s) => !wrapped(s));
  const problems: Problem[] = frame;
  if (cut.length > 0) {
    const one = cut.length === 1;
    problems.push(
      problem(
        'error',
        file,
        { message: split.index },
        'hl7.wrappedSegment',
        `${listLines(cut.map((s) => s.line))} of message ${split.index} ${one ? 'is' : 'are'} no segment but ${one ? 'holds' : 'hold'} the field separator ${quote(separator)}: the rest of the segment before, broken onto a line of its own, so that segment's later fields were not read or were cut short; line ${cut[0]!.line} reads ${quote(cut[0]!.text)}. Join the line back to its segment, or ask for the file as it was sent.${misnamedSegment(cut[0]!.text, separator)}`,
      ),
    );
  }
  if (other.length > 0) {
    const one = other.length === 1;
    const first = other[0]!;
    problems.push(
      problem(
        'warning',
        file,
        { message: split.index },
        'hl7.strayLine',
        `${listLines(other.map((s) => s.line))}, between segments of message ${split.index}, ${one ? 'is not an HL7 segment' : 'are not HL7 segments'} (a wrapped or pasted line?) and ${one ? 'was' : 'were'} left out of the message; line ${first.line} reads ${quote(first.text)}.`,
      ),
    );
  }
  return problems;
}

/**
 * A line that starts like a segment whose name is not three characters (`PIDX|…`, `RX|…`): perhaps a segment with a
 * misspelt name rather than a wrapped tail, which the problem then says too (the line is left out either way).
 */
function misnamedSegment(text: string, separator: string): string {
  const at = text.indexOf(separator);
  const name = at > 0 ? text.slice(0, at) : '';
  if (!/^[A-Z][A-Z0-9]{0,5}$/.test(name) || name.length === 3) return '';
  const near = name.length > 3 && KNOWN_SEGMENTS.has(name.slice(0, 3)) ? ` (${quote(name.slice(0, 3))}?)` : '';
  return ` It may instead be a segment whose name is misspelt: it starts ${quote(name + separator)}, and segment names have three characters${near}; if so, ask the sender to correct it.`;
}

/**
 * The file ends inside the MLLP frame that holds this message (its 0x0B start byte and no 0x1C end byte): what was
 * sent was cut off, perhaps inside a value (RXE-10 `3` of `32`), and nothing in the message shows it. Never sent.
 */
function unclosedFrameProblem(file: string, split: SplitMessage): Problem {
  return problem(
    'error',
    file,
    { message: split.index },
    'hl7.frameUnclosed',
    `Message ${split.index} (line ${split.line}) starts an MLLP frame (byte 0x0B) that the file ends inside, with no end byte (0x1C): the transfer or copy stopped part way, so its last segment may be cut short (a quantity or dosage read incomplete). Ask the sender for the file again; if the file is still being written, import it once it is complete.`,
  );
}

/**
 * Every order message Rx Batch reads (RDE^O11, RDE^O01, OMP^O09, ORM^O01) has at most one PID: its orders are for
 * one patient. A second PID is a second patient, whose details the map never reads: refused, naming the segment,
 * rather than the order being made for the first patient alone. A copy of the first PID changes nothing: a warning.
 */
function patientProblem(message: Hl7Message, file: string, index: number): Problem[] {
  const pids = message.all('PID');
  if (pids.length < 2) return [];
  const [first, ...rest] = pids;
  const differing = rest.filter((pid) => pid.raw.slice(4).trimEnd() !== first!.raw.slice(4).trimEnd());
  const at = (list: typeof pids) => listSome(list.map((pid) => String(pid.position + 1)));
  if (differing.length === 0) {
    return [
      problem(
        'warning',
        file,
        { message: index },
        'hl7.repeatedPatient',
        `Message ${index} repeats its PID segment (segment ${first!.position + 1}) as segment ${at(rest)}, unchanged; the copy was ignored.`,
      ),
    ];
  }
  return [
    problem(
      'error',
      file,
      { message: index },
      'hl7.multiplePatients',
      `Message ${index} holds a second patient: PID segment ${at(differing)} differs from the first PID (segment ${first!.position + 1}), and an order message (${message.messageType || 'no type'}) carries one patient's order. Only the first patient would be read, so the message is refused; ask the sender to send each patient's order in a message of its own.`,
    ),
  ];
}

export async function importHl7(
  /** The file opened once, streamed; or the text already decoded (one MLLP message: import-message.ts). */
  input: ImportSource | { path: string; text: Iterable<string> },
  file: string,
  inspection: Inspection,
  options: ImportOptions,
  sink: OrderSink,
): Promise<ImportReport> {
  const base = {
    file: input.path,
    format: 'hl7' as const,
    encoding: inspection.encoding,
    encodingDetected: inspection.encodingDetected,
  };
  // Chosen when the first message is read: the sender is in it (or in the FHS/BHS before it).
  let chosen: Hl7ProfileChoice | undefined;
  const fileProblems: Problem[] = [];
  const choose = (first: Hl7Message | undefined): Hl7ProfileChoice => {
    chosen = chooseHl7Profile(options, readHl7Sender(splitter.envelope, first), file);
    fileProblems.push(...chosen.problems);
    return chosen;
  };
  const today = options.today ?? new Date();
  const messageTypes = new Set<string>();
  const seen = new Map<string, number>();
  // The items (ORC-2) of this file's new orders sent as a placer group, for a later cancel of one (group-cancel.ts).
  const groupsSeen = new Map<string, readonly string[]>();
  const splitter = new Hl7Splitter(file);
  const messageSenders = new MessageSenders();
  let orderCount = 0;
  let invalidCount = 0;
  let bytes = 0;
  // Set once a chunk holds a no-break or zero-width space (unusual-spaces.ts): only then are values read through
  // plainSpaces (and in a message with a \X..\ escape, which may decode to one).
  let unusualSpaces = false;
  const spaces = new UnusualSpaces();
  // Validation looks through every text of a body for U+FFFD (validate-order.ts) unless told none can hold one. A
  // value can only if the message's text does, a \X..\ escape decodes to one, or the profile or the code lists do
  // (constants, value maps, a list's spelling); the last two are looked at once per import, as the CSV import does.
  // Stored code lists and profiles (deep-frozen) are looked at once each, not at every message the intake reads.
  const listsReadable = readableJson(options.codeLists);
  let profileReadable: { for: Hl7ProfileChoice; readable: boolean } | undefined;
  const readableProfile = (choice: Hl7ProfileChoice): boolean => {
    if (profileReadable?.for !== choice) {
      profileReadable = { for: choice, readable: readableJson(choice.profile ?? null) };
    }
    return profileReadable.readable;
  };

  const emit = async (order: ImportedOrder, extras?: OrderExtras) => {
    orderCount += 1;
    if (!order.valid) invalidCount += 1;
    await sink(order, extras);
  };

  const handle = async (split: SplitMessage) => {
    const where = { message: split.index };
    const source = { file, message: split.index, hl7: split.segments.join('\r') };
    let message;
    try {
      message = parseHl7Message(split.segments);
    } catch (error) {
      if (!(error instanceof Hl7ParseError)) throw error;
      if (!chosen) choose(undefined);
      const entry = unusable(source, 'hl7.unreadable', `Message ${split.index} cannot be read: ${error.message}.`);
      entry.problems.push(...splitProblems(file, split));
      await emit(entry);
      return;
    }
    const choice = chosen ?? choose(message);
    const { profile, compiled } = choice;
    messageSenders.add(message.segments[0], splitter.envelope);
    messageTypes.add(message.messageType || '(none)');
    if (!isAcceptedMessageType(message.messageType)) {
      const entry = unusable(source, 'hl7.messageType', messageTypeRefusal(split.index, message.messageType));
      entry.problems.push(...splitProblems(file, split));
      await emit(entry);
      return;
    }
    if (!message.segments.some((segment) => ORDER_SEGMENTS.has(segment.name))) {
      // A header and nothing of an order (a transfer cut short after an MSH, a message sent empty): one error, not
      // one per missing field.
      const names = [...new Set(message.segments.map((segment) => segment.name))].join(', ');
      const joined = joinedSegment(split.segments, message.delimiters.field);
      // One code either way: the live intake answers AE for it (main/core/intake/intake-service.ts).
      const entry = joined
        ? unusable(
            source,
            'hl7.headerOnly',
            `Message ${split.index} (line ${split.line}) has its segments run together: ${quote(joined)} has no segment break before ${quote(joined.slice(-4))}, so the breaks between segments (carriage returns) were lost on the way, as when a message is pasted into a web form, an email or a spreadsheet. Ask the sender for the file as their system wrote it.`,
          )
        : unusable(
            source,
            'hl7.headerOnly',
            `Message ${split.index} (line ${split.line}) holds only ${names}: no patient (PID), order (ORC) or item (RXE, RXO), so it is no order. The file may be cut short; ask the sender for the whole message.`,
          );
      entry.problems.push(...splitProblems(file, split));
      await emit(entry);
      return;
    }
    const otherOrder = otherOrderText(message, split.index);
    if (otherOrder) {
      // A lab or other department's order (ORM^O01 with OBR, no RXO/RXE): its one problem is the answer, not each
      // pharmacy field it never fills, nor its ORC-1 or MSH-11. The live intake answers AE for it.
      const entry = unusable(source, 'hl7.noItems', otherOrder);
      entry.problems.push(...splitProblems(file, split));
      await emit(entry);
      return;
    }
    const patients = patientProblem(message, file, split.index);
    const escapedBytes = `${message.delimiters.escape}X`;
    // No escape character (MSH-2 `^~`): no `\X..\` either.
    const hexEscapes =
      message.delimiters.escape !== '' && split.segments.some((segment) => segment.includes(escapedBytes));
    const plain = unusualSpaces || hexEscapes;
    const noUnreadableText = !hexEscapes && listsReadable && !NOT_TEXT.test(source.hl7) && readableProfile(choice);
    const extraction = extractHl7Order(message, {
      file,
      messageIndex: split.index,
      overrides: profile?.hl7FieldMap,
      ...(plain ? { spaces } : {}),
    });
    const notLive = processingIdProblem(message, file, split.index, options.sandbox);
    const deceased = deceasedProblem(message, file, split.index);
    const stopped = orderStatusProblem(message, file, split.index);
    const extra = [
      ...(notLive ? [notLive] : []),
      ...(deceased ? [deceased] : []),
      ...(stopped ? [stopped] : []),
      ...extraction.problems,
      ...compoundProblems(message, file, split.index),
      ...escapeProblems(message, file, split.index),
      ...patients,
      ...splitProblems(file, split),
    ];
    let orderControl: 'NW' | 'CA' = 'NW';
    if (extraction.orderControl === 'CA') orderControl = 'CA';
    else if (extraction.orderControl !== 'NW') {
      // Three codes, so the live intake's ERR can say which (ERR-3 103 a value not in the table, 101 none, 100 no ORC).
      const orc = message.first('ORC');
      const [code, text] = !orc
        ? ['hl7.noOrc', 'The message has no ORC segment, so it names no order.']
        : extraction.orderControl
          ? [
              'hl7.orderControl',
              `ORC-1 is ${quote(extraction.orderControl)}; only NW (new order) and CA (cancel) are imported.`,
            ]
          : ['hl7.noOrderControl', `ORC-1 is empty; only NW (new order) and CA (cancel) are imported.`];
      extra.push(problem('error', file, where, code, text));
    }
    const finished = finishOrder({
      cells: extraction.cells,
      profile: compiled,
      file,
      today,
      fallback: where,
      codeLists: options.codeLists,
      extraProblems: extra,
      reported: extraction.reported,
      // A cancel may follow its new order in the same file: that order counts as known (the accept queues it,
      // then withdraws it unsent).
      isKnownOrder:
        orderControl === 'CA' && options.isKnownOrder
          ? (clinicCode, clinicOrderId) =>
              seen.has(`${clinicCode}\u0000${clinicOrderId}`) ||
              options.isPendingNewOrder?.(clinicCode, clinicOrderId) === true ||
              options.isKnownOrder!(clinicCode, clinicOrderId)
          : options.isKnownOrder,
      ...(orderControl === 'CA' && options.isKnownOrder
        ? {
            groupCancel: {
              placers: extraction.placers,
              groupItemsOf: (clinicCode: string, clinicOrderId: string) => {
                const key = `${clinicCode}\u0000${clinicOrderId}`;
                return seen.has(key) ? groupsSeen.get(key) : options.groupItemsOf?.(clinicCode, clinicOrderId);
              },
            },
          }
        : {}),
      source,
      orderControl,
      noUnreadableText,
    });
    const { order, provenance } = finished;
    sayWhereRequired(order.problems, message, profile?.hl7FieldMap);
    provenance.segments = message.segments.length === split.segments.length ? split.segments : undefined;
    if (order.clinicCode && order.clinicOrderId && orderControl === 'NW') {
      const key = `${order.clinicCode}\u0000${order.clinicOrderId}`;
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, split.index);
        if (isPlacerGroup(extraction.placers) && extraction.placers.group === order.clinicOrderId) {
          groupsSeen.set(key, extraction.placers.items);
        }
      } else {
        order.problems.push(
          problem(
            'error',
            file,
            where,
            'order.duplicateInFile',
            `Message ${split.index} repeats order ${quote(order.clinicOrderId)} of clinic ${quote(order.clinicCode)} from message ${first}; the service would reject the second as a duplicate.`,
            'prescription.clinicOrderId',
          ),
        );
        order.valid = false;
      }
    }
    await emit(order, { provenance });
  };

  try {
    const chunks =
      'text' in input
        ? input.text
        : decodedChunks(input, inspection.encoding, {
            signal: options.signal,
            onBytes: (n) => (bytes += n),
            length: inspection.textBytes,
            padding: inspection.totalBytes - inspection.textBytes,
          });
    for await (const chunk of chunks) {
      if (!unusualSpaces && holdsUnusualSpace(chunk)) unusualSpaces = true;
      for (const split of splitter.push(chunk)) await handle(split);
      options.onProgress?.({ bytes, totalBytes: inspection.totalBytes, rows: splitter.messageCount });
    }
    for (const split of splitter.end()) await handle(split);
    // Zero padding after the text is counted once the text is read (decodedChunks).
    if (inspection.textBytes < inspection.totalBytes) {
      options.onProgress?.({ bytes, totalBytes: inspection.totalBytes, rows: splitter.messageCount });
    }
  } catch (error) {
    if (error instanceof Hl7StreamAbort) {
      return { ...base, rowsRead: 0, orders: [], orderCount: 0, invalidCount: 0, fileProblems: [error.problem] };
    }
    throw error;
  }
  const { profile, choice, sender } = chosen ?? choose(undefined);
  fileProblems.push(...splitter.problems);
  const spaced = spaces.problem(file);
  if (spaced) fileProblems.push(spaced);
  if (splitter.messageCount === 0) {
    fileProblems.push(problem('error', file, {}, 'hl7.noMessages', 'The file holds no HL7 message (no MSH segment).'));
  }
  return {
    ...base,
    messageTypes: [...messageTypes],
    ...(profile ? { profile: profile.name, appliedProfile: profile } : {}),
    profileChoice: choice,
    ...(sender ? { hl7Sender: sender } : {}),
    ...(messageSenders.listed ? { hl7MessageSenders: messageSenders.listed } : {}),
    rowsRead: splitter.messageCount,
    orders: [],
    orderCount,
    invalidCount,
    fileProblems,
  };
}
