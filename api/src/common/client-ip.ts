import { lookup } from 'node:dns/promises';
import { type IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { isAddressOrCidr } from '../config/env.schema';

function normalize(address: string): string {
  const trimmed = address.trim();
  return trimmed.startsWith('::ffff:') && isIP(trimmed.slice(7)) === 4 ? trimmed.slice(7) : trimmed;
}

/** Looks a host name up: every address it has, or none when it does not resolve (yet). */
export type HostLookup = (host: string) => Promise<string[]>;

const systemLookup: HostLookup = async (host) =>
  (await lookup(host, { all: true })).map((entry) => entry.address);

function blockList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/**
 * Finds the address of the client behind trusted load balancers: walks `X-Forwarded-For` from
 * the right while each hop is a trusted proxy, and stops at the first address that is not.
 * With no trusted proxies the socket's own address is the client.
 *
 * Trusted proxies are addresses, CIDRs or host names. A host name (a compose service such as
 * `nginx`) is trusted at the addresses it resolves to; `refresh()` looks them up again, because
 * a load balancer may start after the replica or move.
 */
export class ClientIpResolver {
  private readonly fixed: string[];
  private readonly hosts: string[];
  private trusted: BlockList;
  private readonly enabled: boolean;
  private lastRefresh = 0;
  private refreshing: Promise<string[]> | null = null;

  constructor(
    trustProxy: readonly string[],
    private readonly lookupHost: HostLookup = systemLookup,
  ) {
    this.fixed = trustProxy.filter(isAddressOrCidr);
    this.hosts = trustProxy.filter((entry) => !isAddressOrCidr(entry));
    this.trusted = blockList(this.fixed);
    this.enabled = trustProxy.length > 0;
  }

  /** Whether some trusted proxy is named by host name, so `refresh()` has work to do. */
  get hasHostNames(): boolean {
    return this.hosts.length > 0;
  }

  /**
   * Resolves the host names again and trusts what they resolve to now. A name that does not
   * resolve is trusted at no address until it does. Returns the names that did not resolve.
   */
  refresh(): Promise<string[]> {
    this.lastRefresh = Date.now();
    this.refreshing ??= this.lookUpHosts().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async lookUpHosts(): Promise<string[]> {
    const unresolved: string[] = [];
    const resolved = await Promise.all(
      this.hosts.map((host) =>
        this.lookupHost(host).catch(() => {
          unresolved.push(host);
          return [] as string[];
        }),
      ),
    );
    this.trusted = blockList([...this.fixed, ...resolved.flat().map(normalize)]);
    return unresolved;
  }

  private isTrusted(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    return this.trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }

  /** The client address of an HTTP request or a WebSocket upgrade. */
  ofRequest(request: IncomingMessage): string {
    return this.resolve(request.socket.remoteAddress, request.headers['x-forwarded-for']);
  }

  resolve(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined): string {
    const remote = normalize(remoteAddress ?? 'unknown');
    if (!this.enabled || forwardedFor === undefined) return remote;
    if (!this.isTrusted(remote)) {
      // A forwarded request from a peer not trusted yet: perhaps a named load balancer that has
      // just started or moved. Look the names up again soon (at most once a second).
      if (this.hosts.length > 0 && Date.now() - this.lastRefresh >= 1000) void this.refresh();
      return remote;
    }
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
