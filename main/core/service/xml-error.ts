/**
 * An error answered in XML (ASP.NET Web API's `<Error><Message>…</Message></Error>`, a SOAP fault, a gateway's XML
 * refusal) where the client asked for JSON: its words, where the message was the body's first 500 characters of
 * markup. Undefined when the body is not XML.
 */

const XML_START = /^\s*<\?xml\b/i;
/** The elements that carry an error's words, most specific first. */
const WORDS = ['ExceptionMessage', 'Message', 'faultstring', 'detail', 'error', 'title'];

export function isXmlAnswer(text: string, contentType: string | undefined): boolean {
  return XML_START.test(text) || (/\bxml\b/i.test(contentType ?? '') && /^\s*</.test(text));
}

export function xmlErrorWords(text: string, contentType: string | undefined): string | undefined {
  if (!isXmlAnswer(text, contentType)) return undefined;
  const head = text.slice(0, 200_000);
  for (const name of WORDS) {
    // No `<` inside the element's text: a single pass, never quadratic in a body of open tags.
    const match = new RegExp(`<(?:[\\w-]+:)?${name}(?:\\s[^<>]*)?>([^<]{1,2000})<`, 'i').exec(head);
    const words = match?.[1]?.replace(/\s+/g, ' ').trim();
    if (words) return `the service answered in XML: "${words.length > 300 ? `${words.slice(0, 300)}…` : words}"`;
  }
  return 'the service answered in XML, which says nothing the client can read';
}
