/**
 * Whether a message that reuses an answered message's sender and control id (MSH-10) is that message again. A
 * sender resends the same message when an ACK is lost, sometimes with a new MSH-7 (the time it was sent) or other
 * line endings; a clinic system whose counter started again (a reinstall, a second system with the same MSH-3/4)
 * sends a different message under an old id, and answering that one from the first one's record would drop it
 * unseen. So: the same bytes, MSH-7 and segment terminators aside.
 */
export function isSameMessage(stored: Buffer, received: Buffer): boolean {
  if (stored.equals(received)) return true;
  return comparable(stored) === comparable(received);
}

function comparable(raw: Buffer): string {
  // latin1 maps each byte to one character: a comparison of bytes, whatever the message's encoding.
  const segments = raw
    .toString('latin1')
    .replace(/^[\s\ufeff\u00ef\u00bb\u00bf]+/, '')
    .split(/\r\n|\r|\n/)
    .map((segment) => segment.trimEnd())
    .filter((segment) => segment !== '');
  const msh = segments[0];
  if (msh?.startsWith('MSH') && msh.length > 3) {
    const fields = msh.split(msh.charAt(3));
    // fields[0] is "MSH", fields[1] MSH-2, so MSH-n is fields[n - 1]: MSH-7 is fields[6].
    if (fields.length > 6) fields[6] = '';
    segments[0] = fields.join(msh.charAt(3));
  }
  return segments.join('\r');
}
