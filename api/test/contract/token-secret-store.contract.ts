import { type TokenSecretStore } from '../../src/bus/token-secret-store.port';
import { describeContract, type UnderTest } from './describe-contract';

export interface TokenSecretStoreUnderTest extends UnderTest {
  /** A store holding no secret yet. */
  store: TokenSecretStore;
  /** Another replica's store on the same storage; embedded, the same store. */
  peer: TokenSecretStore;
}

/** The behaviour every `TokenSecretStore` driver must have (protocol §4.3). */
export function describeTokenSecretStoreContract(
  driver: string,
  create: () => Promise<TokenSecretStoreUnderTest>,
): void {
  describeContract(`TokenSecretStore contract: ${driver}`, create, (subject) => {
    it('keeps the first secret offered and hands it to every later offer, on every replica', async () => {
      const { store, peer } = subject();
      expect(await store.agree('first-secret')).toBe('first-secret');
      expect(await store.agree('second-secret')).toBe('first-secret');
      expect(await peer.agree('third-secret')).toBe('first-secret');
    });

    it('agrees on one of two secrets offered at once', async () => {
      const { store, peer } = subject();
      const agreed = await Promise.all([store.agree('secret-of-one'), peer.agree('secret-of-two')]);
      expect(['secret-of-one', 'secret-of-two']).toContain(agreed[0]);
      expect(agreed[1]).toBe(agreed[0]);
    });
  });
}
