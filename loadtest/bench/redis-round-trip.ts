/**
 * The CPU one chat message costs a server process in its Redis round trip when it is alone in its
 * turn of the event loop (moderate load): Taco Chat's append script and the delivery back through
 * its subscriber, against the raw peer's script and subscriber. One process, a real
 * `redis-server` on a free loopback port, no sockets to clients and no load clients, so the
 * figure hardly moves with the machine's other load (unlike CPU per delivery in `npm run bench`,
 * which moves with how many events share a turn). Runs the two alternately, `ROUNDS` times.
 *
 *   npx tsx loadtest/bench/redis-round-trip.ts [MESSAGES=20000] [ROUNDS=3]
 */
import { Redis } from 'ioredis';
import { RedisChatBus, RedisConnections } from '@taco/api/tools';
import { intOption, percentile } from '@taco/harness';
import { defineCommands, HISTORY_MAX, keys, ROOM_TTL_SECONDS, storeMessage } from '../peers/store';
import { startRedis as startServerRedis } from './servers';

const ROOM = 'round-trip';
const SENDER = 'member-1';
/** Messages sent before measuring, so that the code is optimized. */
const WARM_UP = 500;
/** How long one message may take to come back before the run fails. */
const DELIVERY_TIMEOUT_MS = 5000;

function body(index: number): string {
  return `{"t":${Date.now()},"x":"a message of moderate length, number ${index}"}`;
}

/** Taco Chat's side of the round trip: `send` stores and publishes one message. */
async function tacoSide(url: string, delivered: () => void) {
  const connections = new RedisConnections({ url }, 'round-trip');
  if (!(await connections.waitUntilReady(5000))) throw new Error('Redis is not answering');
  const bus = new RedisChatBus(connections, {
    historyMax: HISTORY_MAX,
    roomTtlSeconds: ROOM_TTL_SECONDS,
    onRoundTrip: () => undefined,
  });
  bus.onDelivery(delivered);
  await bus.subscribe(ROOM);
  return {
    send: (index: number) =>
      bus.append(ROOM, {
        sender: SENDER,
        body: body(index),
        timestamp: Date.now() / 1000,
        clientId: `c-${index}`,
      }),
    close: () => connections.close(),
  };
}

/** What `peers/raw-server.ts` does per message. */
async function rawSide(url: string, delivered: () => void) {
  const redis = defineCommands(new Redis(url));
  const subscriber = new Redis(url);
  subscriber.on('messageBuffer', delivered);
  await subscriber.subscribe(keys.channel(ROOM));
  return {
    send: (index: number) =>
      storeMessage(redis, ROOM, SENDER, body(index), Date.now() / 1000, { clientId: `c-${index}` }),
    close: () => Promise.all([redis.quit(), subscriber.quit()]),
  };
}

/** Sends `messages` one at a time, each after the previous one came back, and times the CPU. */
export async function measure(server: 'taco' | 'raw', url: string, messages: number) {
  /** Settles the message in flight (one at a time, each delivered once). */
  let arrived = (): void => undefined;
  const side = await (server === 'taco' ? tacoSide : rawSide)(url, () => arrived());
  const one = (index: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Message ${index} did not come back`)),
        DELIVERY_TIMEOUT_MS,
      );
      arrived = () => {
        clearTimeout(timer);
        resolve();
      };
      side.send(index).catch(reject);
    });
  try {
    for (let index = 0; index < WARM_UP; index++) await one(index);
    const before = process.cpuUsage();
    for (let index = 0; index < messages; index++) await one(WARM_UP + index);
    const used = process.cpuUsage(before);
    // CPU of this process per message, in microseconds.
    return {
      server,
      messages,
      userMicros: used.user / messages,
      systemMicros: used.system / messages,
    };
  } finally {
    await side.close();
  }
}

/** A throwaway `redis-server` on a free loopback port, without persistence. */
export const startRedis = () => startServerRedis({ appendonly: 'no' });

async function main(): Promise<void> {
  const messages = intOption('MESSAGES', process.argv[2], 20_000, 1, 1_000_000);
  const rounds = intOption('ROUNDS', process.argv[3], 3, 1, 20);
  const redis = await startRedis();
  try {
    const costs = [];
    for (let round = 1; round <= rounds; round++) {
      for (const server of ['taco', 'raw'] as const) {
        const cost = await measure(server, redis.url, messages);
        costs.push(cost);
        console.log(
          `round ${round} ${server.padEnd(4)}: user ${cost.userMicros.toFixed(1)} µs, system ${cost.systemMicros.toFixed(1)} µs per message`,
        );
      }
    }
    for (const server of ['taco', 'raw'] as const) {
      const mine = costs.filter((cost) => cost.server === server);
      // The middle round (the upper one of an even count).
      const median = (values: number[]) => (percentile(values, 50) ?? 0).toFixed(1);
      console.log(
        `${server.padEnd(4)} median: user ${median(mine.map((c) => c.userMicros))} µs, system ${median(mine.map((c) => c.systemMicros))} µs per message`,
      );
    }
  } finally {
    await redis.stop();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
