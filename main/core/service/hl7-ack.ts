/**
 * An HL7 acknowledgement answering an HL7 create (`MSH|…` then `MSA|AR|<control id>|<text>`), as an HL7 endpoint
 * may answer instead of the chosen `{ "orderId" }`: its MSA-1 code and MSA-3 text (else ERR-8's), or undefined.
 */
export function hl7AckIn(text: string): { code: string; text: string } | undefined {
  const message = text.trimStart();
  if (!message.startsWith('MSH') || message.length < 4) return undefined;
  const separator = message[3]!;
  const segments = message.split(/\r\n|\r|\n/).map((segment) => segment.split(separator));
  const msa = segments.find((fields) => fields[0] === 'MSA');
  if (!msa) return undefined;
  const err = segments.find((fields) => fields[0] === 'ERR');
  const said = (msa[3] ?? '').trim() || (err?.[8] ?? '').trim();
  return { code: (msa[1] ?? '').trim().toUpperCase(), text: said.slice(0, 200) };
}

/** An application reject or error (AR, AE, and enhanced mode's CR, CE): the message was not taken. */
export function isHl7Refusal(ack: { code: string }): boolean {
  return /^[AC][ER]$/.test(ack.code);
}

/** The acknowledgement in words, for a message stored with the order. */
export function hl7AckWords(ack: { code: string; text: string }): string {
  const said = ack.text ? `: ${ack.text}` : '';
  return isHl7Refusal(ack)
    ? `the service refused the HL7 message (${ack.code})${said}`
    : `the service answered with an HL7 acknowledgement (${ack.code || 'no code'})${said}`;
}
