import {
  INTAKE_ALLOW_LIST_SHOWN,
  type IntakeAllowListView,
  type IntakeChannelView,
} from '../../../shared/intake-contract.js';
import { plural } from '../../../shared/count-words.js';
import { isLoopbackHost } from '../../../shared/loopback.js';
import { batchesFedSince } from '../store/intake-fed-batches.js';
import type { Store } from '../store/store.js';
import { hasErrSegment, reasonFromAck, type ChannelActivity } from './channel-activity.js';
import { folderAccessWarning } from './folder-access.js';
import type { FolderWatcher, WatchedFileResult } from './folder-watcher.js';
import { readMessageHeader } from './hl7-ack.js';
import type { IntakeResult } from './intake-service.js';
import type { ListenerRefusal, PeerRefusalReason } from './listener-refusal.js';
import type { MllpListener } from './mllp-listener.js';

/**
 * One listener or watched folder as the Intake screen shows it, whoever runs it: the app's own intake
 * (app-intake.ts) or `rx-batch serve` under `--ui` (served-intake.ts). What each received is counted here, and a
 * problem keeps the peer, the control id and a reason made of HL7 error names: never message text.
 */

export interface IntakeChannel {
  kind: 'mllp' | 'folder';
  address: string;
  state: IntakeChannelView['state'];
  message?: string;
  activity: ChannelActivity;
  listener?: MllpListener;
  watcher?: FolderWatcher;
}

/** What a run shown needs to find the batches its listener fed: the intake rows after `afterMessageId`. */
export interface ChannelRun {
  environmentId: string;
  afterMessageId: number;
}

export function channelView(store: Store, run: ChannelRun, channel: IntakeChannel): IntakeChannelView {
  const stats = channel.listener?.stats;
  const batches =
    channel.kind === 'mllp' && store.isOpen
      ? batchesFedSince(store.db, run.environmentId, run.afterMessageId, 50)
      : channel.activity.batches();
  const access = channel.kind === 'folder' ? folderAccessWarning(channel.address) : undefined;
  return {
    kind: channel.kind,
    address: channel.address,
    state: channel.state,
    ...(channel.message ? { message: channel.message } : {}),
    allowList: channel.kind === 'mllp' ? allowListView(channel.listener?.allowed) : null,
    // Read at each view, so a chmod shows at the next refresh.
    ...(access ? { access } : {}),
    peers: channel.state === 'listening' ? (stats?.peers ?? []).slice(0, 100) : [],
    connections: channel.state === 'listening' ? (stats?.connections ?? 0) : 0,
    perMinute: channel.activity.series(),
    received: channel.activity.received,
    problems: channel.activity.problems(),
    batches,
  };
}

/**
 * A listener's allow-list as the Intake screen judges it, so `serve --mllp 0.0.0.0:2575 --allow 10.0.0.5` is not
 * shown as open to any computer: the count, the first addresses, and whether they are all this computer's.
 */
export function allowListView(allowed: readonly string[] | undefined): IntakeAllowListView | null {
  if (allowed === undefined) return null;
  return {
    count: allowed.length,
    addresses: allowed.slice(0, INTAKE_ALLOW_LIST_SHOWN).map((address) => address.slice(0, 100)),
    loopbackOnly: allowed.length > 0 && allowed.every((address) => isLoopbackHost(address)),
  };
}

/**
 * A message answered on a listener: counted, and kept as a problem unless it was `AA` with no ERR (an `AA` with
 * ERR segments was staged with problems a person must fix before it can be sent: `review`).
 */
export function noteMessage(activity: ChannelActivity, raw: Buffer, peer: string, result: IntakeResult): void {
  activity.count();
  const review = result.code === 'AA';
  if (review && !hasErrSegment(result.ack)) return;
  // Only the MSH is read again, for the control id; the reason comes from the ACK's error names.
  const header = readMessageHeader(raw.subarray(0, 2048).toString('utf8'));
  activity.problem({
    controlId: (header?.controlId ?? '').slice(0, 200),
    peer,
    outcome: review ? 'review' : result.code === 'AE' ? 'AE' : 'AR',
    // The view's reason is at most 500 characters, as reasonFromAck's own are.
    reason: review
      ? `${TO_FIX}${reasonFromAck(result.ack, { warnings: true })}`.slice(0, 500)
      : reasonFromAck(result.ack),
    batchId: result.batchId,
  });
}

/** A peer or frame the listener refused before reading it. */
export function noteRefusal(activity: ChannelActivity, refusal: ListenerRefusal): void {
  activity.problem({
    controlId: '',
    peer: refusal.peer,
    outcome: 'refused',
    reason: refusalReason(refusal),
    batchId: null,
  });
}

/**
 * A file a watcher handled: counted, its batch linked, and kept as a problem when it was set aside; an empty one
 * left waiting is kept as a problem only (nothing was received yet).
 */
export function noteFile(activity: ChannelActivity, store: Store, file: WatchedFileResult): void {
  if (file.outcome === 'waiting') {
    activity.problem({
      controlId: file.name.slice(0, 200),
      peer: '',
      outcome: 'waiting',
      reason: EMPTY_REASON,
      batchId: null,
    });
    return;
  }
  activity.count();
  if (file.batchId !== null && file.outcome !== 'duplicate') {
    activity.fed(file.batchId, store.batches.get(file.batchId)?.sourceFileName ?? file.name);
  }
  if (file.outcome === 'failed') {
    activity.problem({
      controlId: file.name.slice(0, 200),
      peer: '',
      outcome: 'failed',
      reason: fileReason(file),
      batchId: file.batchId,
    });
  }
}

/** A connection refused on connect, in words per reason: the listener refuses peers for more than the allow-list. */
const PEER_REFUSAL_TEXT: Record<PeerRefusalReason, string> = {
  allow: 'The peer is not in the allow-list.',
  http: 'The connection began as an HTTP request (a web page or web client sent to the MLLP port?); it was closed unread.',
  notMllp:
    'The connection did not begin with an MLLP start byte (a TLS handshake to a listener without TLS, or another protocol); it was closed unread.',
  tls: 'The TLS handshake failed: the peer gave no certificate the trusted CA issued, or did not speak TLS.',
};

export function refusalReason(refusal: ListenerRefusal): string {
  if (refusal.kind === 'peer') {
    const why = PEER_REFUSAL_TEXT[refusal.reason];
    if (refusal.count === undefined) return why;
    // Past the listener's cap on addresses tracked, the rest share one count (mllp-listener.ts).
    const from = refusal.peer === 'other peers' ? 'from other addresses' : 'from this address';
    return `${plural(refusal.count, 'more connection', 'more connections')} ${from} refused for the same reason, counted into this one. ${why}`;
  }
  if (refusal.kind === 'busy') return 'The listener had as many connections open as it takes; this one was closed.';
  if (refusal.kind === 'tooLarge') return 'The message was larger than the limit; the connection was closed.';
  return 'An unfinished frame was followed by a new one; it was dropped.';
}

const TO_FIX = "Staged with problems to fix in the sender's batch of the day before it can be sent: ";

const EMPTY_REASON =
  'The file is empty: it stays in the folder, and is imported once something is written into it. A writer that ' +
  'creates the file first should write it under a temporary name (.tmp, .part) and rename it into place.';

/**
 * Why a watched file was refused, in words, from its problems' codes: never their texts, which may quote the
 * file's rows (a patient's, in a file with no header).
 */
const REFUSED_BECAUSE: Record<string, string> = {
  'file.empty': 'it holds nothing to read',
  'file.binary': 'it is not text (a spreadsheet workbook, a PDF or an archive?)',
  'file.unsupportedEncoding': 'its text encoding cannot be read',
  'file.notRegular': 'it is not a regular file (a link, a FIFO or a device)',
  'csv.noHeader': 'no header row names the fields of an order: it needs a mapping profile for its layout',
  'file.otherFormat': 'it is neither CSV nor HL7 v2 as Rx Batch reads them (HL7 XML, XML, JSON or a web page?)',
  'hl7.noMessageHeader': 'its HL7 segments have no MSH header (the file lost its start?)',
  'csv.profileHeaderNotFound': 'the header its mapping profile expects is not in it',
  'csv.duplicateHeader': 'its header has the same column more than once',
  'hl7.fileUnclosed': 'its HL7 batch is not closed (cut short?)',
  'hl7.batchUnclosed': 'its HL7 batch is not closed (cut short?)',
};

function fileReason(file: WatchedFileResult): string {
  if (file.batchId !== null)
    return 'Some orders need fixing: see the batch, or the .errors.csv beside the file in failed/.';
  const known = [...new Set((file.refused?.codes ?? []).map((code) => REFUSED_BECAUSE[code]).filter(Boolean))];
  const why = known.length > 0 ? ` because ${known.join('; ')}` : '';
  const where = file.refused ? file.refused.note : 'its .problems.txt in failed/';
  return `The file was refused${why}. Every reason is in ${where}.`.slice(0, 500);
}
