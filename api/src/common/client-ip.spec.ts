import { ClientIpResolver } from './client-ip';

describe('ClientIpResolver', () => {
  it('uses the socket address when no proxy is trusted', () => {
    const resolver = new ClientIpResolver([]);
    expect(resolver.resolve('203.0.113.5', '198.51.100.1')).toBe('203.0.113.5');
    expect(resolver.resolve('::ffff:127.0.0.1', undefined)).toBe('127.0.0.1');
  });

  it('ignores X-Forwarded-For from an untrusted peer', () => {
    const resolver = new ClientIpResolver(['10.0.0.1']);
    expect(resolver.resolve('203.0.113.5', '198.51.100.1')).toBe('203.0.113.5');
  });

  it('walks X-Forwarded-For from the right past trusted proxies', () => {
    const resolver = new ClientIpResolver(['10.0.0.0/8', '::1']);
    expect(resolver.resolve('10.0.0.2', '198.51.100.1')).toBe('198.51.100.1');
    expect(resolver.resolve('::1', 'spoofed, 198.51.100.7, 10.1.2.3')).toBe('198.51.100.7');
    expect(resolver.resolve('::ffff:10.0.0.2', ['198.51.100.1', '10.9.9.9'])).toBe('198.51.100.1');
  });

  it('stops at a hop that is not an address', () => {
    const resolver = new ClientIpResolver(['10.0.0.0/8']);
    expect(resolver.resolve('10.0.0.2', 'garbage')).toBe('10.0.0.2');
  });

  it('keeps the nearest trusted hop when every hop is trusted', () => {
    const resolver = new ClientIpResolver(['10.0.0.0/8']);
    expect(resolver.resolve('10.0.0.2', '10.0.0.3')).toBe('10.0.0.3');
  });
});
