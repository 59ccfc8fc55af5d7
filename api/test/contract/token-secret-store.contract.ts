import { type TokenSecretStore } from '../../src/bus/token-secret-store.port';

export interface TokenSecretStoreUnderTest {
  /** A store holding no secret yet. */
  store: TokenSecretStore;
  /** Another replica's store on the same storage; embedded, the same store. */
  peer: TokenSecretStore;
  dispose(): Promise<void>;
}

/** The behaviour every `TokenSecretStore` driver must have (protocol §4.3). */
export function describeTokenSecretStoreContract(
  driver: string,
  create: () => Promise<TokenSecretStoreUnderTest>,
): void {
  describe(`TokenSecretStore contract: ${driver}`, () => {
    let subject: TokenSecretStoreUnderTest;

    beforeEach(async () => {
      subject = await create();
    });
    afterEach(() => subject.dispose());

    it('keeps the first secret offered and hands it to every later offer, on every replica', async () => {
      expect(await subject.store.agree('first-secret')).toBe('first-secret');
      expect(await subject.store.agree('second-secret')).toBe('first-secret');
      expect(await subject.peer.agree('third-secret')).toBe('first-secret');
    });

    it('agrees on one of two secrets offered at once', async () => {
      const agreed = await Promise.all([
        subject.store.agree('secret-of-one'),
        subject.peer.agree('secret-of-two'),
      ]);
      expect(['secret-of-one', 'secret-of-two']).toContain(agreed[0]);
      expect(agreed[1]).toBe(agreed[0]);
    });
  });
}
