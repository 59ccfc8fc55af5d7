/** What the fault scenarios share: their members, their chatter and the verdict on what users saw. */
import { type ReconnectPolicy } from '@taco/protocol';
import { ChatMember, readHistory } from '../client';
import { type Cluster, type ReplicaHandle } from '../cluster';
import { sleep, waitFor } from '../wait';

export interface ChaosOptions {
  /** Short runs for CI: fewer clients and inputs, shorter outages. */
  short: boolean;
  /** `REDIS_WAIT_REPLICAS` of the Redis Cluster scenarios' replicas (default 1). */
  redisWaitReplicas?: number;
}

export interface ScenarioResult {
  scenario: string;
  /** Replica or Redis processes that exited without being told to, and failed expectations. */
  crashes: number;
  /** Acknowledged messages (own echo with a seq) missing from history afterwards. */
  missingAcked: number;
  /** Messages refused with an error frame (not stored, it says) that history holds afterwards. */
  refusedStored: number;
  /** Messages a client would have shown twice. */
  duplicatesShown: number;
  acked: number;
  refused: number;
  reconnects: number;
  reconnectP50Ms: number | null;
  reconnectMaxMs: number | null;
  notes: string[];
}

/** Limits raised so a scenario measures what it is about, not the per-IP abuse limits. */
export const SCENARIO_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  MESSAGE_BURST: '10000',
  MESSAGES_PER_SECOND: '100000',
  TYPING_PER_SECOND: '1000',
  HISTORY_REQUESTS_PER_10S: '10000',
  CREDENTIALS_PER_MINUTE: '1000000',
  CONNECTIONS_PER_IP: '1000000',
};

/** Faster than a browser's policy, so a scenario takes seconds; same decisions otherwise. */
export const FAST_RECONNECT: ReconnectPolicy = {
  attempts: 20,
  intervalMs: 400,
  jitter: 0.2,
  immediateMaxDelayMs: 200,
};

export const percentile = (values: number[], p: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
};

/** Replicas (and Redis) that are not running although nobody stopped them. */
function crashed(cluster: Cluster, stopped: ReadonlySet<ReplicaHandle>): number {
  const replicas = cluster.replicas.filter(
    (replica) => !replica.isRunning && !stopped.has(replica),
  ).length;
  return replicas + (cluster.redis && !cluster.redis.isRunning ? 1 : 0);
}

/** `count` members of `room` through `baseUrl`, connected and caught up. */
export async function members(baseUrl: string, room: string, count: number): Promise<ChatMember[]> {
  const all = Array.from(
    { length: count },
    (_, i) => new ChatMember(baseUrl, room, `user ${i + 1}`, { policy: FAST_RECONNECT }),
  );
  await Promise.all(all.map((member) => member.connect()));
  return all;
}

/** Everyone says something every `everyMs` for `durationMs`, while `during` runs. */
export async function chatter(
  all: ChatMember[],
  durationMs: number,
  everyMs: number,
  during: () => Promise<void>,
): Promise<void> {
  const talk = (async () => {
    for (let round = 0; round < Math.ceil(durationMs / everyMs); round++) {
      for (const member of all) member.say(`round ${round} from ${member.name}`);
      await sleep(everyMs);
    }
  })();
  await during();
  await talk;
}

/** Until every member is live again, and a little longer for the last echoes. */
export async function settle(all: ChatMember[], timeoutMs = 20_000): Promise<void> {
  await waitFor('every member back online', () => all.every((member) => member.live), {
    timeoutMs,
    intervalMs: 50,
  });
  await sleep(500);
}

/** What the members saw against what the room's history holds; closes the members. */
export async function verdict(
  cluster: Cluster,
  scenario: string,
  room: string,
  all: ChatMember[],
  stopped: ReadonlySet<ReplicaHandle>,
  notes: string[],
): Promise<ScenarioResult> {
  const history = await readHistory(cluster.url, room);
  const stored = new Set(history.map((message) => `${message.epoch}|${message.seq}`));
  const storedBodies = new Set(history.map((message) => message.body));
  const stats = all.map((member) => member.report());
  for (const member of all) member.close();
  const sum = (count: (report: (typeof stats)[number]) => number) =>
    stats.reduce((total, report) => total + count(report), 0);
  const reconnectMs = stats.flatMap((s) => s.reconnectMs);
  return {
    scenario,
    crashes: crashed(cluster, stopped),
    missingAcked: sum((s) => s.acked.filter((a) => !stored.has(`${a.epoch}|${a.seq}`)).length),
    refusedStored: sum((s) => s.refused.filter((body) => storedBodies.has(body)).length),
    duplicatesShown: sum((s) => s.conflicts),
    acked: sum((s) => s.acked.length),
    refused: sum((s) => s.refused.length),
    reconnects: sum((s) => s.reconnects),
    reconnectP50Ms: percentile(reconnectMs, 50),
    reconnectMaxMs: percentile(reconnectMs, 100),
    notes,
  };
}
