/**
 * Where the replicas agree on the token secret when the operator set none (see `TokenSecret`).
 * The port (also the injection token).
 */
export abstract class TokenSecretStore {
  /**
   * Whether other replicas see what is stored here. When they do not (embedded), a secret made
   * for this boot serves and nothing needs agreeing on.
   */
  abstract readonly shared: boolean;
  /**
   * Stores `candidate` unless a secret is stored already, and returns the one stored, in one
   * atomic step. Rejects when the store cannot be reached.
   */
  abstract agree(candidate: string): Promise<string>;
}
