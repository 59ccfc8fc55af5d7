/** What `startCluster` takes and gives: its options and the handles of what it started. */
import { type Exit, type OutputMode } from './managed-process';
import { type RedisCluster, type RedisClusterOptions } from './redis-cluster';

export interface ClusterOptions {
  /** api replicas behind nginx (default 3). */
  replicas?: number;
  /** nginx's port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** The built web client nginx serves (default web/dist). */
  webDist?: string;
  /** Extra environment for every replica (rate limits, LOG_LEVEL…). */
  env?: Record<string, string>;
  /**
   * Run Redis and point the replicas at it (default). `false` runs one embedded replica with
   * in-memory state behind nginx, which only makes sense with `replicas: 1`.
   */
  redis?: boolean;
  /**
   * Run a Redis Cluster instead of one Redis: 3 masters and 3 replicas of `redis-server` on
   * loopback (or as many as the options say), created with `redis-cli --cluster create`; the
   * replicas get `REDIS_CLUSTER_NODES`.
   */
  redisCluster?: boolean | Pick<RedisClusterOptions, 'masters' | 'replicasPerMaster'>;
  /** `stream` prints every child's output as `[name] line`; `quiet` (default) only keeps it. */
  output?: OutputMode;
  /** Bound on each start-up wait (default 30 s). */
  startTimeoutMs?: number;
}

/** One process the cluster runs, on its loopback port. */
interface ProcessHandle {
  readonly port: number;
  readonly url: string;
  readonly pid: number | undefined;
  readonly isRunning: boolean;
  /** Settles when the current run ends. */
  readonly exited: Promise<Exit>;
  /** Output lines so far. */
  readonly lines: readonly string[];
}

/** `url` is http://127.0.0.1:port, the replica itself (bypassing nginx). */
export interface ReplicaHandle extends ProcessHandle {
  readonly id: string;
  kill(signal?: NodeJS.Signals): void;
  /** Stops the replica if it runs, starts it again on the same port, and waits until ready. */
  restart(): Promise<void>;
}

export interface RedisHandle extends ProcessHandle {
  readonly dir: string;
  /** Sends `signal` (SIGTERM: Redis flushes the AOF and exits) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
  /** Starts Redis again on the same port and folder, so the AOF is replayed. */
  start(): Promise<void>;
}

export interface NginxHandle {
  readonly port: number;
  readonly pid: number | undefined;
  readonly configPath: string;
  readonly accessLog: string;
  readonly errorLog: string;
  readonly lines: readonly string[];
  /** The replicas in nginx's upstream now (every replica until `route` says otherwise). */
  readonly routed: readonly ReplicaHandle[];
  /**
   * Renders the upstream with only these replicas and reloads nginx (SIGHUP), as nginx in front
   * of a Kubernetes Service does once the endpoints drop a pod; resolves once nginx's new workers
   * run (the old ones keep only the connections they hold). Requests from then on go to these.
   */
  route(replicas: readonly ReplicaHandle[]): Promise<void>;
}

export interface Cluster {
  /** http://127.0.0.1:port through nginx. */
  readonly url: string;
  readonly workDir: string;
  readonly replicas: readonly ReplicaHandle[];
  readonly redis: RedisHandle | null;
  /** The Redis Cluster, with `redisCluster` (then `redis` is null). */
  readonly redisCluster: RedisCluster | null;
  readonly nginx: NginxHandle;
  /** Ends everything (SIGTERM, SIGKILL after a bounded wait) and removes the working folder. */
  stop(): Promise<void>;
}
