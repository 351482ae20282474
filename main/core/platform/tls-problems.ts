/**
 * What a TLS failure means for the admin, by OpenSSL's or Node's code: what is wrong with a server's certificate
 * and what fixes it. The bare texts ("self-signed certificate", "unable to verify the first certificate") named
 * neither, behind "could not reach …", so an admin looked for an outage. Shared by the Order Service client and
 * sign-in, which name their server and the setting that holds its address.
 */

export interface TlsPeer {
  /** "the service", "the identity server" */
  server: string;
  /** The setting holding its address: "the API base URL", "the issuer address". */
  address: string;
}

const UNTRUSTED_AUTHORITY = (p: TlsPeer) =>
  `${p.server}'s certificate comes from an authority this computer does not trust (a company proxy, or a private authority): add that authority to this computer's trusted certificates, or ask ${p.server}'s operator`;

const PROBLEMS: Record<string, (p: TlsPeer) => string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: (p) =>
    `${p.server}'s certificate is self-signed, so this computer does not trust it: if this environment uses its own certificate, add it (or its authority) to this computer's trusted certificates; otherwise check ${p.address}`,
  SELF_SIGNED_CERT_IN_CHAIN: UNTRUSTED_AUTHORITY,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED_AUTHORITY,
  UNABLE_TO_GET_ISSUER_CERT: (p) =>
    `${p.server}'s certificate chain is incomplete, so it cannot be checked: ask ${p.server}'s operator to send the whole chain`,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: (p) =>
    `${p.server}'s certificate cannot be checked (its chain is incomplete, or its authority is not trusted here): ask ${p.server}'s operator, or add the authority to this computer's trusted certificates`,
  CERT_HAS_EXPIRED: (p) =>
    `${p.server}'s certificate has expired: ask ${p.server}'s operator to renew it (or check this computer's clock)`,
  CERT_NOT_YET_VALID: (p) =>
    `${p.server}'s certificate is not valid yet: check this computer's date and time, or ask ${p.server}'s operator`,
  CERT_REVOKED: (p) =>
    `${p.server}'s certificate has been revoked: ask ${p.server}'s operator; do not send to it meanwhile`,
  ERR_TLS_CERT_ALTNAME_INVALID: (p) =>
    `${p.server}'s certificate is for another name than ${p.address}'s: check the address in the environment's settings`,
};

/** The admin's words for a failed handshake (`code`, `message` as Node gives them), or undefined if it was not one. */
export function describeTlsProblem(code: string | undefined, message: string, peer: TlsPeer): string | undefined {
  const said = code ? PROBLEMS[code] : undefined;
  if (said) return said(peer);
  // OpenSSL's "wrong version number" (EPROTO): the first bytes back were not TLS, as a plain HTTP server's are.
  if (/wrong version number|packet length too long|http request/i.test(message)) {
    return `the address does not answer in HTTPS (perhaps it serves plain HTTP, or it is another port): check ${peer.address}`;
  }
  // Other handshake failures: Node's ERR_SSL_*, or OpenSSL's codes (CERT_*, *_CERT_*).
  if (code && /^(ERR_SSL_|ERR_TLS_|CERT_|[A-Z_]*_CERT(_|$))/.test(code)) {
    return `the secure connection to ${peer.server} could not be set up (${message.slice(0, 200)}): check ${peer.address}, or ask ${peer.server}'s operator`;
  }
  return undefined;
}
