/** pino's levels, most severe first. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * The validated configuration of one api process. It is also the injection token: inject
 * `AppConfig` to read it. Only `config/` builds it, from the environment.
 */
export class AppConfig {
  port: number;
  host: string;
  /** Unset (and no cluster nodes): the embedded, in-memory driver. */
  redisUrl: string | undefined;
  /** Seed nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`); never set together with `redisUrl`. */
  redisClusterNodes?: { host: string; port: number }[] | undefined;
  /**
   * Redis replicas that must hold a message (`WAIT`) before its sender gets its own copy; 0 (the
   * default) acknowledges once the master stored it.
   */
  redisWaitReplicas: number;
  /** How long a message waits for that confirmation before it is acknowledged as unconfirmed. */
  redisWaitTimeoutMs: number;
  /**
   * The operator's token secret. Unset: the embedded server makes one per boot, and replicas
   * sharing Redis agree on one kept there (see `TokenSecret`).
   */
  jwtSecret: string | undefined;
  tokenTtlSeconds: number;
  historyMax: number;
  roomTtlSeconds: number;
  /** Allowed browser origins; empty means "the same host as the request". */
  allowedOrigins: string[];
  /** Addresses and CIDRs of the load balancers whose `X-Forwarded-For` is trusted. */
  trustProxy: string[];
  /** The built web client to serve, or `null` to serve the API only. */
  webDist: string | null;
  /** Lines below this level are not written. */
  logLevel: LogLevel;
  /** Human-readable lines (stdout is a terminal) instead of JSON lines. */
  logPretty: boolean;
  replicaId: string;
  credentialsPerMinute: number;
  connectionsPerIp: number;
  messageBurst: number;
  messagesPerSecond: number;
  typingPerSecond: number;
  historyRequests: number;
  historyWindowMs: number;
  strikesBeforeClose: number;
  strikesForgivenPerSecond: number;
  pingIntervalMs: number;
  /** How long a socket the server closes may take to answer the close frame before it is dropped. */
  closeTimeoutMs: number;
  /** How long a connection's backlog may stay over the send buffer limit after one large frame. */
  backlogGraceMs: number;
  /** How often a replica renews its presence lease and reaps the lapsed leases of others. */
  presenceRefreshMs: number;
  /**
   * How long a presence lease runs without a renewal (then its participants and its socket counts
   * are reaped).
   */
  presenceExpiryMs: number;
  /**
   * How often the Redis subscriptions are checked (and how long a probe may take before its room
   * is subscribed again and its gap filled).
   */
  subscriptionCheckMs: number;
  /**
   * The \`disappear_after\` values (seconds) a room may take: 0 (off), the shortest
   * (\`DISAPPEAR_SHORTEST\`, 1 hour by default), 1 day and 7 days (protocol/README.md §6.13).
   */
  disappearChoices: number[];

  constructor(values: AppConfig) {
    Object.assign(this, values);
  }
}
