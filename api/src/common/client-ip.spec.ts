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

  describe('with load balancers named by host name', () => {
    it('trusts a name at the addresses it resolves to, once looked up', async () => {
      const resolver = new ClientIpResolver(['nginx'], () => Promise.resolve(['172.18.0.5']));
      expect(resolver.hasHostNames).toBe(true);
      await resolver.refresh();
      expect(resolver.resolve('172.18.0.5', '198.51.100.1')).toBe('198.51.100.1');
      expect(resolver.resolve('172.18.0.6', '198.51.100.1')).toBe('172.18.0.6');
    });

    it('trusts a name that does not resolve yet at no address, and follows it when it moves', async () => {
      let answer: string[] | null = null;
      const resolver = new ClientIpResolver(['10.0.0.1', 'nginx'], () =>
        answer === null ? Promise.reject(new Error('ENOTFOUND')) : Promise.resolve(answer),
      );
      expect(await resolver.refresh()).toEqual(['nginx']);
      expect(resolver.resolve('172.18.0.5', '198.51.100.1')).toBe('172.18.0.5');
      expect(resolver.resolve('10.0.0.1', '198.51.100.1')).toBe('198.51.100.1');

      answer = ['172.18.0.5'];
      expect(await resolver.refresh()).toEqual([]);
      expect(resolver.resolve('172.18.0.5', '198.51.100.1')).toBe('198.51.100.1');

      answer = ['172.18.0.9'];
      await resolver.refresh();
      expect(resolver.resolve('172.18.0.5', '198.51.100.1')).toBe('172.18.0.5');
      expect(resolver.resolve('::ffff:172.18.0.9', '198.51.100.1')).toBe('198.51.100.1');
    });
  });
});
