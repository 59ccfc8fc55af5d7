import { readFileSync } from 'node:fs';
import { decodeClientFrame, FrameType } from '@taco/protocol';
import fc from 'fast-check';
import { type Cluster, httpStatus, type ReplicaHandle, sleep, waitFor } from '@taco/harness';
import { ChaosClient, type ClientStats, readHistory } from './chaos-client';

export interface ChaosOptions {
  /** Short runs for CI: fewer clients and inputs, shorter outages. */
  short: boolean;
  /** `REDIS_WAIT_REPLICAS` of the Redis Cluster scenarios' replicas (default 1). */
  redisWaitReplicas?: number;
}

export interface ScenarioResult {
  scenario: string;
  /** Replica or Redis processes that exited without being told to. */
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

const percentile = (values: number[], p: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
};

/** Replicas that are not running although nobody stopped them. */
function crashed(cluster: Cluster, stopped: ReadonlySet<ReplicaHandle>): number {
  const replicas = cluster.replicas.filter(
    (replica) => !replica.isRunning && !stopped.has(replica),
  ).length;
  return replicas + (cluster.redis && !cluster.redis.isRunning ? 1 : 0);
}

export async function clients(
  cluster: Cluster,
  room: string,
  count: number,
): Promise<ChaosClient[]> {
  const all = Array.from(
    { length: count },
    (_, i) => new ChaosClient(cluster.url, room, `user ${i + 1}`),
  );
  await Promise.all(all.map((client) => client.connect()));
  return all;
}

/** Everyone says something every `everyMs` for `durationMs`, while `during` runs. */
export async function chatter(
  all: ChaosClient[],
  durationMs: number,
  everyMs: number,
  during: () => Promise<void>,
): Promise<void> {
  let running = true;
  const talk = (async () => {
    for (let round = 0; running && round < Math.ceil(durationMs / everyMs); round++) {
      for (const client of all) client.say(`round ${round} from ${client.name}`);
      await sleep(everyMs);
    }
  })();
  await during();
  await talk;
  running = false;
}

export async function settle(all: ChaosClient[], timeoutMs = 20_000): Promise<void> {
  await waitFor('every client back online', () => all.every((client) => client.open), {
    timeoutMs,
    intervalMs: 50,
  });
  await sleep(500);
}

export async function verdict(
  cluster: Cluster,
  scenario: string,
  room: string,
  all: ChaosClient[],
  stopped: ReadonlySet<ReplicaHandle>,
  notes: string[],
): Promise<ScenarioResult> {
  const history = await readHistory(cluster.url, room);
  const stored = new Set(history.map((message) => message.seq));
  const storedBodies = new Set(history.map((message) => message.body));
  const stats: ClientStats[] = all.map((client) => client.stats);
  for (const client of all) client.close();
  const reconnectMs = stats.flatMap((s) => s.reconnectMs);
  return {
    scenario,
    crashes: crashed(cluster, stopped),
    missingAcked: stats.reduce(
      (sum, s) => sum + s.acked.filter((seq) => !stored.has(seq)).length,
      0,
    ),
    refusedStored: stats.reduce(
      (sum, s) => sum + s.refusedBodies.filter((body) => storedBodies.has(body)).length,
      0,
    ),
    duplicatesShown: stats.reduce((sum, s) => sum + s.duplicatesShown, 0),
    acked: stats.reduce((sum, s) => sum + s.acked.length, 0),
    refused: stats.reduce((sum, s) => sum + s.refused, 0),
    reconnects: stats.reduce((sum, s) => sum + s.reconnects, 0),
    reconnectP50Ms: percentile(reconnectMs, 50),
    reconnectMaxMs: percentile(reconnectMs, 100),
    notes,
  };
}

/** Random and mutated frames through nginx: typed errors, no crash, nothing leaked. */
export async function fuzzScenario(
  cluster: Cluster,
  options: ChaosOptions,
): Promise<ScenarioResult> {
  const room = `chaos-fuzz-${Date.now()}`;
  const [observer, ...fuzzers] = await clients(cluster, room, 4);
  if (!observer) throw new Error('no observer');
  const inputs = fc.sample(
    fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.string({ maxLength: 100 }),
      fc
        .record({
          type: fc.integer({ min: -2, max: 9 }),
          body: fc.anything(),
          count: fc.anything(),
          typing: fc.anything(),
        })
        .map((frame) => JSON.stringify(frame)),
    ),
    { numRuns: options.short ? 300 : 3000, seed: 42 },
  );
  let expectedErrors = 0;
  for (const [index, input] of inputs.entries()) {
    const fuzzer = fuzzers[index % fuzzers.length];
    const decoded = decodeClientFrame(input);
    // Valid clears would empty the room and valid messages are ordinary chat: keep to the bad ones.
    if (decoded.ok) continue;
    expectedErrors++;
    fuzzer?.send(input);
    if (index % 50 === 0) await sleep(5);
  }
  await waitFor(
    'error frames for every bad input',
    () => fuzzers.reduce((sum, f) => sum + f.stats.errorCodes.length, 0) >= expectedErrors,
    { timeoutMs: 20_000, intervalMs: 50 },
  );
  const leaked = observer.others.filter((frame) => frame.type !== FrameType.Presence).length;
  const notes = [
    `${inputs.length} inputs, ${expectedErrors} invalid, ${fuzzers.reduce((sum, f) => sum + f.stats.errorCodes.length, 0)} typed errors back, ${leaked} frames leaked to others`,
  ];
  const result = await verdict(cluster, 'fuzz', room, [observer, ...fuzzers], new Set(), notes);
  return { ...result, crashes: result.crashes + leaked };
}

/** SIGKILL one replica while everyone chats; its clients come back through nginx. */
export async function killScenario(
  cluster: Cluster,
  options: ChaosOptions,
): Promise<ScenarioResult> {
  const room = `chaos-kill-${Date.now()}`;
  const all = await clients(cluster, room, options.short ? 6 : 18);
  const victim = cluster.replicas[1] ?? cluster.replicas[0];
  if (!victim) throw new Error('no replica');
  const stopped = new Set([victim]);
  await chatter(all, options.short ? 3000 : 8000, 250, async () => {
    await sleep(800);
    victim.kill('SIGKILL');
    await victim.exited;
  });
  await settle(all);
  const result = await verdict(cluster, 'replica SIGKILL', room, all, stopped, [
    `killed ${victim.id}`,
  ]);
  await victim.restart();
  return result;
}

/** SIGTERM one replica: it drains with 1012 and its clients move at once. */
export async function drainScenario(
  cluster: Cluster,
  options: ChaosOptions,
): Promise<ScenarioResult> {
  const room = `chaos-drain-${Date.now()}`;
  const all = await clients(cluster, room, options.short ? 6 : 18);
  const victim = cluster.replicas[0];
  if (!victim) throw new Error('no replica');
  await chatter(all, options.short ? 3000 : 8000, 250, async () => {
    await sleep(800);
    victim.kill('SIGTERM');
    await victim.exited;
  });
  await settle(all);
  const drained = all.filter((client) => client.stats.closeCodes.includes(1012)).length;
  const result = await verdict(cluster, 'replica SIGTERM drain', room, all, new Set([victim]), [
    `${drained} clients closed with 1012 by ${victim.id}`,
  ]);
  await victim.restart();
  return result;
}

/** Redis stopped (SIGTERM writes the AOF) and started again, or kept down for a while. */
export async function redisScenario(
  cluster: Cluster,
  options: ChaosOptions,
  downMs: number,
  label: string,
): Promise<ScenarioResult> {
  const redis = cluster.redis;
  if (!redis) throw new Error('the cluster runs without Redis');
  const room = `chaos-redis-${Date.now()}`;
  const all = await clients(cluster, room, options.short ? 4 : 10);
  await chatter(all, downMs + 3000, 250, async () => {
    await sleep(800);
    await redis.stop('SIGTERM');
    await sleep(downMs);
    await redis.start();
  });
  await waitFor(
    'every replica ready again',
    async () =>
      (
        await Promise.all(cluster.replicas.map((r) => httpStatus(`${r.url}/api/health/ready`)))
      ).every((s) => s === 200),
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  await settle(all);
  // Delivery resumed: a message after recovery reaches everyone.
  const [speaker] = all;
  speaker?.say('after the outage');
  await waitFor(
    'a message after recovery reaching everyone',
    () =>
      all.every((client) => [...client.feed.values()].some((m) => m.body === 'after the outage')),
    { timeoutMs: 10_000, intervalMs: 50 },
  );
  return verdict(cluster, label, room, all, new Set(), [`Redis down for ${downMs} ms`]);
}

/**
 * Redis frozen (SIGSTOP) for longer than a command's time limit, then let go (SIGCONT): the
 * connections stay open, so every script sent meanwhile runs once Redis goes on. Nothing refused
 * may be stored; what was sent is acknowledged late instead.
 */
export async function redisPauseScenario(
  cluster: Cluster,
  options: ChaosOptions,
  pauseMs: number,
): Promise<ScenarioResult> {
  const redis = cluster.redis;
  if (!redis?.pid) throw new Error('the cluster runs without Redis');
  const pid = redis.pid;
  const room = `chaos-pause-${Date.now()}`;
  const all = await clients(cluster, room, options.short ? 4 : 10);
  let paused = false;
  try {
    await chatter(all, pauseMs + 3000, 250, async () => {
      await sleep(800);
      process.kill(pid, 'SIGSTOP');
      paused = true;
      await sleep(pauseMs);
      process.kill(pid, 'SIGCONT');
      paused = false;
    });
  } finally {
    if (paused) process.kill(pid, 'SIGCONT');
  }
  await settle(all);
  await sleep(1000);
  return verdict(cluster, 'Redis paused', room, all, new Set(), [`Redis paused for ${pauseMs} ms`]);
}

/** One client floods: it is refused and then closed with 4429; the others chat untouched. */
export async function floodScenario(
  cluster: Cluster,
  options: ChaosOptions,
): Promise<ScenarioResult> {
  const room = `chaos-flood-${Date.now()}`;
  const [flooder, ...calm] = await clients(cluster, room, 3);
  if (!flooder) throw new Error('no flooder');
  const floods = options.short ? 300 : 2000;
  for (let i = 0; i < floods; i++) flooder.send({ type: FrameType.Message, body: `flood ${i}` });
  await chatter(calm, 2000, 500, () => sleep(0));
  await sleep(500);
  const limited = flooder.stats.errorCodes.filter((code) => code === 'rate_limited').length;
  const closedForAbuse = flooder.stats.closeCodes.includes(4429);
  flooder.close();
  const calmRefused = calm.reduce((sum, client) => sum + client.stats.refused, 0);
  const result = await verdict(cluster, 'client flood', room, calm, new Set(), [
    `flooder: ${limited} rate_limited errors, closed with 4429: ${closedForAbuse}; calm clients refused: ${calmRefused}`,
  ]);
  return { ...result, crashes: result.crashes + (closedForAbuse ? 0 : 1) };
}

function rssBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** A client that stops reading: closed with 1013, the replica's memory stays bounded. */
export async function slowConsumerScenario(
  cluster: Cluster,
  options: ChaosOptions,
): Promise<ScenarioResult> {
  const replica = cluster.replicas[0];
  if (!replica) throw new Error('no replica');
  const room = `chaos-slow-${Date.now()}`;
  // Straight to one replica, so its memory is the one measured.
  const [writer, slow] = await Promise.all(
    ['writer', 'slow'].map(async (name) => {
      const client = new ChaosClient(replica.url, room, name);
      await client.connect();
      return client;
    }),
  );
  if (!writer || !slow) throw new Error('no clients');
  const before = rssBytes(replica.pid);
  (slow.raw as unknown as { _socket: { pause(): void } })._socket.pause();
  const body = 'x'.repeat(4000);
  const rounds = options.short ? 100 : 200;
  let peak = before;
  for (let round = 0; round < rounds && !slow.stats.closeCodes.length; round++) {
    for (let i = 0; i < 20; i++) writer.send({ type: FrameType.Message, body });
    await sleep(20);
    peak = Math.max(peak, rssBytes(replica.pid));
  }
  (slow.raw as unknown as { _socket: { resume(): void } })._socket.resume();
  await waitFor('the slow client closed', () => slow.stats.closeCodes.length > 0, {
    timeoutMs: 15_000,
  });
  const closedWith = slow.stats.closeCodes[0];
  slow.close();
  const result = await verdict(cluster, 'slow consumer', room, [writer], new Set(), [
    `slow client closed with ${closedWith}; replica RSS ${(before / 2 ** 20).toFixed(1)} MiB → peak ${(peak / 2 ** 20).toFixed(1)} MiB`,
  ]);
  return { ...result, crashes: result.crashes + (closedWith === 1013 ? 0 : 1) };
}
