/** True for this computer: 127.0.0.0/8, ::1 and localhost (names under .localhost included, per RFC 6761). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4 !== null && v4.slice(1).every((part) => Number(part) <= 255);
}

/**
 * Why `text` may not carry credentials (tokens, a client secret) or a sign-in page, or undefined when it may:
 * https anywhere, plain http only to this computer (the local sandbox). `what` names the address in the sentence.
 */
export function insecureUrlProblem(text: string, what: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `The ${what} "${text}" is not a valid URL.`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname)) return undefined;
    return `The ${what} ${url.origin} uses plain http. Use https; plain http is only allowed for this computer (localhost, 127.0.0.1, [::1]).`;
  }
  return `The ${what} must start with https:// (got ${url.protocol}).`;
}
