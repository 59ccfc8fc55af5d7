/**
 * Redis faults while members chat: standalone Redis restarted, kept down or frozen; on a Redis
 * Cluster, the master of a busy room's slot killed, or the slot moved to another master.
 */
import { ApiPath, roomKeys } from '@taco/protocol';
import { type ChatMember } from '../client/chat-member';
import { type Cluster } from '../cluster';
import { metricValue } from '../metrics';
import { sum } from '../probe';
import { type RedisCluster } from '../redis-cluster';
import { httpStatus, sleep, waitFor } from '../wait';
import { type ChaosOptions, underFault, verdict } from './verdict';

/** Whether every member holds a message whose body includes `marker`. */
const allHold = (all: readonly ChatMember[], marker: string) =>
  all.every((member) => [...member.feed.values()].some((m) => m.body.includes(marker)));

/** How long each outage of `redisScenario` keeps Redis down or frozen: short run, long run. */
const OUTAGE_MS = { restart: [0, 0], down: [3000, 10_000], paused: [3000, 5000] } as const;
type Outage = keyof typeof OUTAGE_MS;

/**
 * Redis stopped (SIGTERM writes the AOF) and started again at once (`restart`) or kept down for a
 * while (`down`); or frozen (SIGSTOP) for a while longer than a command's time limit, then let go
 * (SIGCONT, `paused`): the connections stay open, so every script sent meanwhile runs once Redis
 * goes on. Nothing refused may be stored; what was sent is acknowledged late instead.
 */
export async function redisScenario(cluster: Cluster, options: ChaosOptions, outage: Outage) {
  const pause = outage === 'paused';
  const ms = OUTAGE_MS[outage][options.short ? 0 : 1];
  const redis = cluster.redis;
  const pid = redis?.pid;
  if (!redis || !pid) throw new Error('the cluster runs without Redis');
  const ready = async () =>
    (
      await Promise.all(cluster.replicas.map((r) => httpStatus(`${r.url}${ApiPath.healthReady}`)))
    ).every((status) => status === 200);
  const fault = async () => {
    if (pause) process.kill(pid, 'SIGSTOP');
    else await redis.stop('SIGTERM');
    await sleep(ms).finally(() => pause && process.kill(pid, 'SIGCONT'));
    if (pause) return;
    await redis.start();
    await waitFor('every replica ready again', ready, { timeoutMs: 20_000, intervalMs: 100 });
  };
  const size = { members: options.short ? 4 : 10, ms: ms + 3000 };
  const { room, all } = await underFault(cluster, outage, size, fault);
  if (pause) await sleep(1000);
  else {
    all[0]?.say('after the outage');
    await waitFor(
      'a message after recovery reaching everyone',
      () => allHold(all, 'after the outage'),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  }
  const label = outage === 'restart' ? 'Redis restart (AOF)' : `Redis ${outage}`;
  return verdict(cluster, label, room, all, [`Redis ${pause ? 'paused' : 'down'} for ${ms} ms`]);
}

function redisClusterOf(cluster: Cluster): RedisCluster {
  if (!cluster.redisCluster) throw new Error('the cluster runs without a Redis Cluster');
  return cluster.redisCluster;
}

/** The sum of a counter over every replica's metrics (0 where it is absent). */
async function counterSum(cluster: Cluster, name: string): Promise<number> {
  const values = cluster.replicas.map((r) => metricValue(r.url, name, {}, 2000).catch(() => 0));
  return sum(await Promise.all(values));
}

/**
 * Until every member holds a message with `marker` in its body: the first one says one every
 * 200 ms (a message refused while the room's shard has no master is simply said again). When
 * delivery came back, to everyone else and as the speaker's own acknowledgement; `null` for what
 * did not happen within `timeoutMs`.
 */
async function deliveredAgain(all: readonly ChatMember[], marker: string, timeoutMs: number) {
  const [speaker, ...others] = all;
  const resumed = { others: null as number | null, acknowledged: null as number | null };
  const deadline = Date.now() + timeoutMs;
  for (let n = 0; speaker && Date.now() < deadline; n++) {
    resumed.others ??= allHold(others, marker) ? Date.now() : null;
    resumed.acknowledged ??= allHold([speaker], marker) ? Date.now() : null;
    if (resumed.others !== null && resumed.acknowledged !== null) break;
    if (n % 4 === 0) speaker.say(`${marker} ${n / 4}`);
    await sleep(50);
  }
  return resumed;
}

/**
 * SIGKILL of the Redis master that owns a busy room's slot, then (as a supervisor would) the dead
 * node started again once its replica took over; it rejoins as a replica. Reports when the replica
 * was promoted, when delivery resumed for every member, and how many acknowledgements could not
 * be confirmed by a Redis replica.
 */
export async function redisMasterKillScenario(cluster: Cluster, options: ChaosOptions) {
  const redis = redisClusterOf(cluster);
  await redis.waitUntilHealthy(30_000);
  const unconfirmedBefore = await counterSum(cluster, 'taco_unconfirmed_messages_total');
  const notes: string[] = [];
  const size = options.short ? { members: 4, ms: 8000 } : { members: 10, ms: 15_000 };
  const { room, all } = await underFault(cluster, 'master', size, async (all, room) => {
    const owner = await redis.ownerOf(roomKeys(room).log);
    owner.kill('SIGKILL');
    const killedAt = Date.now();
    await owner.exited;
    const resumed = deliveredAgain(all, 'after the master died', 20_000);
    await waitFor(
      'a replica promoted',
      async () => (await redis.ownerOf(roomKeys(room).log).catch(() => owner)) !== owner,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    notes.push(
      `master 127.0.0.1:${owner.port} killed; its replica took over after ${Date.now() - killedAt} ms`,
    );
    await owner.start();
    const { others, acknowledged } = await resumed;
    notes.push(
      others === null
        ? 'delivery did not resume within 20 s'
        : `delivery to the others resumed ${others - killedAt} ms after the kill`,
      acknowledged === null
        ? 'the sender was not acknowledged again within 20 s'
        : `the sender was acknowledged again ${acknowledged - killedAt} ms after the kill`,
    );
  });
  const unconfirmed =
    (await counterSum(cluster, 'taco_unconfirmed_messages_total')) - unconfirmedBefore;
  notes.push(`${unconfirmed} acknowledgement(s) given without a Redis replica confirming`);
  const late = notes.some((note) => note.includes('within 20 s')) ? 1 : 0;
  const result = await verdict(cluster, 'Redis master SIGKILL', room, all, notes, late);
  await redis.waitUntilHealthy(30_000);
  return result;
}

/** The slot of a busy room moved to another master (`SETSLOT`, `MIGRATE`) while everyone chats. */
export async function slotMoveScenario(cluster: Cluster, options: ChaosOptions) {
  const redis = redisClusterOf(cluster);
  const notes: string[] = [];
  const size = options.short ? { members: 4, ms: 3000 } : { members: 10, ms: 8000 };
  const { room, all } = await underFault(cluster, 'slot', size, async (_, room) => {
    const { from, to } = await redis.moveSlot(roomKeys(room).log);
    notes.push(`slot moved from 127.0.0.1:${from.port} to 127.0.0.1:${to.port}`);
  });
  const resumed = await deliveredAgain(all, 'after the slot moved', 10_000);
  const stalled = resumed.others === null || resumed.acknowledged === null;
  if (stalled) notes.push('delivery did not resume within 10 s');
  return verdict(cluster, 'Redis slot move', room, all, notes, stalled ? 1 : 0);
}
