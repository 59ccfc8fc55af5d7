import { BlockList, isIP } from 'node:net';

function normalize(address: string): string {
  const trimmed = address.trim();
  return trimmed.startsWith('::ffff:') && isIP(trimmed.slice(7)) === 4 ? trimmed.slice(7) : trimmed;
}

/**
 * Finds the address of the client behind trusted load balancers: walks `X-Forwarded-For` from
 * the right while each hop is a trusted proxy, and stops at the first address that is not.
 * With no trusted proxies the socket's own address is the client.
 */
export class ClientIpResolver {
  private readonly trusted = new BlockList();
  private readonly enabled: boolean;

  constructor(trustProxy: readonly string[]) {
    for (const entry of trustProxy) {
      const [address = '', prefix] = entry.split('/');
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.trusted.addAddress(address, type);
      else this.trusted.addSubnet(address, Number(prefix), type);
    }
    this.enabled = trustProxy.length > 0;
  }

  private isTrusted(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    return this.trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }

  resolve(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined): string {
    const remote = normalize(remoteAddress ?? 'unknown');
    if (!this.enabled || forwardedFor === undefined || !this.isTrusted(remote)) return remote;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map(normalize)
      .filter((hop) => hop.length > 0);
    let client = remote;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] as string;
      if (isIP(hop) === 0) break;
      client = hop;
      if (!this.isTrusted(hop)) break;
    }
    return client;
  }
}
