import { BlockList, isIP } from 'node:net';

/**
 * Peer addresses a live-intake sender's messages may come from (an HL7 profile's `peers`): IPv4 or IPv6 addresses
 * and CIDR blocks (`10.20.0.0/16`, `fd00::/8`). Node's BlockList matches them, IPv4-mapped IPv6 addresses
 * (`::ffff:10.20.1.5`, as a dual-stack listener reports IPv4 peers) included, either way round.
 */

/** Why `rule` is not an address or CIDR block, or undefined when it is one. */
export function peerRuleProblem(rule: string): string | undefined {
  const [address = '', bits, ...more] = rule.split('/');
  const family = isIP(address);
  if (family === 0 || more.length > 0) return `"${rule}" is not an IP address or CIDR block (e.g. 10.20.0.0/16)`;
  if (bits === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) {
    return `"${rule}": the prefix length after / is 0 to ${max} for an IPv${family} block`;
  }
  return undefined;
}

/** A matcher for valid rules (peerRuleProblem says which are): whether an address is in any of them. */
export function peerMatcher(rules: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const rule of rules) {
    const [address = '', bits] = rule.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** The address of a peer as the listener names it (`10.20.1.5:50312`, `::1:50312`, `fd00::7:50312`). */
export function peerAddressOf(peer: string): string {
  const at = peer.lastIndexOf(':');
  if (at < 0) return peer;
  const address = peer.slice(0, at);
  return isIP(address) !== 0 && /^\d*$/.test(peer.slice(at + 1)) ? address : peer;
}
