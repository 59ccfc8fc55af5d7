/** What the fault scenarios share: members, their chatter, the verdict on what users saw. */
import { type ReconnectPolicy } from '@taco/protocol';
import { ChatMember, type MemberReport, readHistory } from '../client/chat-member';
import { type Cluster } from '../cluster';
import { type Service } from '../managed-process';
import { sum } from '../probe';
import { sleep, waitFor } from '../wait';

export interface ChaosOptions {
  /** Short runs for CI: fewer clients and inputs, shorter outages. */
  short: boolean;
  /** `REDIS_WAIT_REPLICAS` of the Redis Cluster scenarios' replicas (default 1). */
  redisWaitReplicas?: number;
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
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
};

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
  const talk = async () => {
    for (let round = 0; round < Math.ceil(durationMs / everyMs); round++) {
      for (const member of all) member.say(`round ${round} from ${member.name}`);
      await sleep(everyMs);
    }
  };
  await Promise.all([talk(), during()]);
}

/**
 * The shape of a fault scenario: `size.members` members of a new room `chaos-<name>-<time>` chat
 * every 250 ms for `size.ms`; 800 ms in, `fault` runs; then they settle.
 */
export async function underFault(
  cluster: Cluster,
  name: string,
  size: { members: number; ms: number },
  fault: (all: ChatMember[], room: string) => Promise<void>,
): Promise<{ room: string; all: ChatMember[] }> {
  const room = `chaos-${name}-${Date.now()}`;
  const all = await members(cluster.url, room, size.members);
  await chatter(all, size.ms, 250, async () => {
    await sleep(800);
    await fault(all, room);
  });
  await settle(all);
  return { room, all };
}

/** Until every member is live again, and a little longer for the last echoes. */
export async function settle(all: ChatMember[], timeoutMs = 20_000): Promise<void> {
  await waitFor('every member back online', () => all.every((member) => member.live), {
    timeoutMs,
    intervalMs: 50,
  });
  await sleep(500);
}

/** A message's identity: one per `(epoch, seq)`. */
export const messageKey = (message: { epoch: string; seq: number }) =>
  `${message.epoch}|${message.seq}`;

/** The keys of `expected` (key → body) that a member's list does not hold with that body. */
export function lacking(member: MemberReport, expected: Map<string, string | undefined>) {
  const held = new Map(member.list.map((message) => [messageKey(message), message.body]));
  return [...expected].filter(([at, body]) => held.get(at) !== body).map(([at]) => at);
}

/** A room's acknowledged messages against its history and against every member's list. */
export async function tally(baseUrl: string, room: string, all: ChatMember[]) {
  // Nobody's list to check (the slow consumer's attack has no member): no history to read.
  const history = all.length > 0 ? await readHistory(baseUrl, room) : [];
  const stored = new Map(history.map((message) => [messageKey(message), message.body]));
  const copies = new Map<string, number>();
  for (const { body } of history) copies.set(body, (copies.get(body) ?? 0) + 1);
  const stats = all.map((member) => member.report());
  const acked = stats.flatMap((s) => s.acked);
  const count = (each: (s: MemberReport) => number) => sum(stats.map(each));
  const lost = new Set(acked.map(messageKey).filter((at) => !stored.has(at)));
  const missingFromHistory = lost.size;
  // Every member holds each acknowledged message, once, with the body history holds.
  const expected = new Map(acked.map((a) => [messageKey(a), stored.get(messageKey(a))]));
  const missing: string[] = [];
  for (const s of stats) {
    const lacks = lacking(s, expected);
    for (const at of lacks) lost.add(at);
    if (lacks.length > 0) missing.push(`${room}/${s.name}: ${lacks.join(',')}`);
  }
  const isStored = (body: string) => copies.has(body);
  return {
    acked: acked.length,
    missingFromHistory,
    /** Acknowledged messages missing from history or from some member's list. */
    lost: lost.size,
    missing,
    /** Acknowledged messages whose body history holds more than once. */
    storedTwice: acked.filter((a) => (copies.get(a.body) ?? 0) > 1).length,
    refused: count((s) => s.refused.length),
    refusedStored: count((s) => s.refused.filter(isStored).length),
    unacknowledged: count((s) => s.unacknowledged.length),
    unacknowledgedStored: count((s) => s.unacknowledged.filter(isStored).length),
    conflicts: count((s) => s.conflicts),
    repeatedFrames: count((s) => s.repeatedFrames),
    reconnects: count((s) => s.reconnects),
    reconnectMs: stats.flatMap((s) => s.reconnectMs),
  };
}

/**
 * What the members saw against what the room's history holds; closes the members. `failed`:
 * expectations the scenario saw missed, counted as crashes; `stopped`: replicas stopped on purpose.
 */
export async function verdict(
  cluster: Cluster,
  scenario: string,
  room: string,
  all: ChatMember[],
  notes: string[],
  failed = 0,
  stopped: readonly Service[] = [],
) {
  const seen = await tally(cluster.url, room, all);
  for (const member of all) member.close();
  const crashed = [...cluster.replicas, ...(cluster.redis ? [cluster.redis] : [])].filter(
    (child) => !child.isRunning && !stopped.includes(child),
  ).length;
  return {
    scenario,
    /** Replica or Redis processes that exited without being told to, and failed expectations. */
    crashes: crashed + failed,
    /** Acknowledged messages (own echo with a seq) missing from history afterwards. */
    missingAcked: seen.missingFromHistory,
    /** Messages refused with an error frame (not stored, it says) that history holds afterwards. */
    refusedStored: seen.refusedStored,
    /** Messages a client would have shown twice. */
    duplicatesShown: seen.conflicts,
    acked: seen.acked,
    refused: seen.refused,
    reconnects: seen.reconnects,
    reconnectP50Ms: percentile(seen.reconnectMs, 50),
    reconnectMaxMs: percentile(seen.reconnectMs, 100),
    notes,
  };
}

export type ScenarioResult = Awaited<ReturnType<typeof verdict>>;
