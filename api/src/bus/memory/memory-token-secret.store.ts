import { TokenSecretStore } from '../token-secret-store.port';

/** This process alone: the first secret offered stays, and no other replica sees it. */
export class MemoryTokenSecretStore extends TokenSecretStore {
  readonly shared = false;
  private stored: string | undefined;

  agree(candidate: string): Promise<string> {
    this.stored ??= candidate;
    return Promise.resolve(this.stored);
  }
}
