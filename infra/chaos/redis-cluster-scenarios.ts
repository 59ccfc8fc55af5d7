import { roomKeys } from '@taco/protocol';
import { type Cluster, type RedisCluster, sleep, waitFor } from '@taco/harness';
import { type ChaosClient } from './chaos-client';
import {
  type ChaosOptions,
  chatter,
  clients,
  type ScenarioResult,
  settle,
  verdict,
} from './scenarios';

function redisClusterOf(cluster: Cluster): RedisCluster {
  if (!cluster.redisCluster) throw new Error('the cluster runs without a Redis Cluster');
  return cluster.redisCluster;
}

/** The sum of a counter over every replica's `/api/metrics` (0 where it is absent). */
async function counterSum(cluster: Cluster, name: string): Promise<number> {
  const texts = await Promise.all(
    cluster.replicas.map(async (replica) => {
      try {
        const response = await fetch(`${replica.url}/api/metrics`, {
          signal: AbortSignal.timeout(2000),
        });
        return await response.text();
      } catch {
        return '';
      }
    }),
  );
  let sum = 0;
  for (const text of texts) {
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      sum += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
    }
  }
  return sum;
}

/** When delivery came back: to everyone else, and the speaker's own acknowledgement (`Date.now()`). */
interface Resumed {
  others: number | null;
  acknowledged: number | null;
}

/**
 * Until every client holds a message with `marker` in its body: the first client says one every
 * 200 ms (a message refused while the room's shard has no master is simply said again). Returns
 * when the others all had one and when the speaker had its own back (acknowledged); `null` for
 * what did not happen within `timeoutMs`.
 */
async function deliveredAgain(
  all: readonly ChaosClient[],
  marker: string,
  timeoutMs: number,
): Promise<Resumed> {
  const [speaker, ...others] = all;
  const resumed: Resumed = { others: null, acknowledged: null };
  const holds = (client: ChaosClient) =>
    [...client.feed.values()].some((message) => message.body.includes(marker));
  const deadline = Date.now() + timeoutMs;
  for (let n = 0; speaker && Date.now() < deadline; n++) {
    if (resumed.others === null && others.every(holds)) resumed.others = Date.now();
    if (resumed.acknowledged === null && holds(speaker)) resumed.acknowledged = Date.now();
    if (resumed.others !== null && resumed.acknowledged !== null) break;
    if (n % 4 === 0) speaker.say(`${marker} ${n / 4}`);
    await sleep(50);
  }
  return resumed;
}

/**
 * SIGKILL of the Redis master that owns a busy room's slot, then (as a supervisor would) the dead
 * node started again once its replica took over; it rejoins as a replica. Reports when the replica
 * was promoted, when delivery resumed for every client, and how many acknowledgements could not
 * be confirmed by a Redis replica.
 */
export async function redisMasterKillScenario(
  cluster: Cluster,
  options: ChaosOptions,
): Promise<ScenarioResult> {
  const redis = redisClusterOf(cluster);
  await redis.waitUntilHealthy(30_000);
  const room = `chaos-master-${Date.now()}`;
  const all = await clients(cluster, room, options.short ? 4 : 10);
  const unconfirmedBefore = await counterSum(cluster, 'taco_unconfirmed_messages_total');
  const notes: string[] = [];
  await chatter(all, options.short ? 8000 : 15_000, 250, async () => {
    await sleep(800);
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
      `master ${owner.address} killed; its replica took over after ${Date.now() - killedAt} ms`,
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
  await settle(all);
  const unconfirmed =
    (await counterSum(cluster, 'taco_unconfirmed_messages_total')) - unconfirmedBefore;
  notes.push(`${unconfirmed} acknowledgement(s) given without a Redis replica confirming`);
  const result = await verdict(cluster, 'Redis master SIGKILL', room, all, new Set(), notes);
  await redis.waitUntilHealthy(30_000);
  return {
    ...result,
    crashes: result.crashes + (notes.some((note) => note.includes('within 20 s')) ? 1 : 0),
  };
}

/** The slot of a busy room moved to another master (`SETSLOT`, `MIGRATE`) while everyone chats. */
export async function slotMoveScenario(
  cluster: Cluster,
  options: ChaosOptions,
): Promise<ScenarioResult> {
  const redis = redisClusterOf(cluster);
  const room = `chaos-slot-${Date.now()}`;
  const all = await clients(cluster, room, options.short ? 4 : 10);
  const notes: string[] = [];
  await chatter(all, options.short ? 3000 : 8000, 250, async () => {
    await sleep(800);
    const { from, to } = await redis.moveSlot(roomKeys(room).log);
    notes.push(`slot moved from ${from.address} to ${to.address}`);
  });
  await settle(all);
  const resumed = await deliveredAgain(all, 'after the slot moved', 10_000);
  const stalled = resumed.others === null || resumed.acknowledged === null;
  if (stalled) notes.push('delivery did not resume within 10 s');
  const result = await verdict(cluster, 'Redis slot move', room, all, new Set(), notes);
  return { ...result, crashes: result.crashes + (stalled ? 1 : 0) };
}
