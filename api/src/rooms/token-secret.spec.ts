import { generateSecret, TokenSecret } from './token-secret';

describe('TokenSecret', () => {
  it("uses the operator's secret as given", () => {
    const secret = TokenSecret.local('operator-secret-that-is-long-enough-0123456789');
    expect(secret.source).toBe('configured');
    expect(secret.key.export().toString()).toBe('operator-secret-that-is-long-enough-0123456789');
  });

  it('makes a new random secret of at least 32 bytes on every boot when none is set', () => {
    const first = TokenSecret.local(undefined);
    const second = TokenSecret.local(undefined);
    expect(first.source).toBe('boot');
    expect(first.key.symmetricKeySize).toBeGreaterThanOrEqual(32);
    expect(first.key.export().equals(second.key.export())).toBe(false);
    expect(generateSecret()).not.toBe(generateSecret());
  });
});
