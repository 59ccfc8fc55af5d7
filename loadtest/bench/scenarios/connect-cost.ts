/**
 * `npm run bench -- --only connectCost`: what one connect costs Taco Chat. `--sockets` clients
 * (4,000 by default, 64 at a time) each ask one replica for credentials and open a room socket
 * (rooms of `--members`) until the server's own presence frame arrives, the way the bench's
 * idle workload does, with credentials and sockets on the same replica. Reports, per connect:
 * the replica's CPU ms (/proc) and Redis commands (INFO commandstats, commands inside scripts
 * included, and background presence refreshes while the run lasts), the wall time of the whole
 * run, and first, from MONITOR, every Redis round trip of one connect. `--profile DIR`
 * writes the replica's V8 CPU profile there (summarize it with profile-summary.ts).
 */
import { resolve } from 'node:path';
import {
  commandStats,
  commandsPer,
  cpuWindow,
  credentials,
  isPresence,
  openAll,
  RawClient,
  round,
  socketUrl,
} from '@taco/harness';
import Redis from 'ioredis';
import { startServer } from '../servers';
import { withServer } from '../session';
import { log, type Scenario, stamp } from './common';

const CONCURRENCY = 64;

/**
 * Every Redis command of two connects made one at a time before anything else runs (so no
 * background work interleaves), from MONITOR: round trips (commands a client sent) and commands
 * run inside scripts, per connect, for the first member of a room and for a later one.
 */
async function traceConnects(redis: Redis, replicaUrl: string, tag: string) {
  // A first connect loads the scripts into Redis (EVAL once, EVALSHA after): not traced.
  const opened = [await connectOne(replicaUrl, `${tag}-warm`, 'warm-up')];
  // A connection of its own in MONITOR mode.
  const monitor = await redis.monitor();
  const seen: { args: string[]; inScript: boolean }[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    seen.push({ args, inScript: source.includes('lua') });
  });
  const traced: Record<string, { roundTrips: string[]; inScripts: number }> = {};
  try {
    for (const [label, name] of [
      ['first in its room', 'trace-a'],
      ['joining others', 'trace-b'],
    ] as const) {
      seen.length = 0;
      opened.push(await connectOne(replicaUrl, `${tag}-trace`, name));
      // Commands of this connect still on their way to MONITOR.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const own = seen.filter(({ args }) => !args.join(' ').includes('MONITOR'));
      const roundTrips = own
        .filter(({ inScript }) => !inScript)
        .map(({ args }) => (args[0] ?? '?').toLowerCase());
      const inScripts = own.filter(({ inScript }) => inScript).length;
      traced[label] = { roundTrips, inScripts };
      log(
        `  one connect, ${label}: ${roundTrips.length} Redis round trips (${roundTrips.join(', ')}), ${inScripts} commands inside scripts`,
      );
    }
  } finally {
    monitor.disconnect();
    for (const client of opened) client.socket.terminate();
  }
  return traced;
}

/** Credentials, a socket, and the server's presence frame for the newcomer: one connect. */
async function connectOne(replicaUrl: string, room: string, name: string): Promise<RawClient> {
  const url = socketUrl(replicaUrl, room, { token: await credentials(replicaUrl, room, name) });
  const client = RawClient.connect(url, { perMessageDeflate: false }, name);
  await client.next(isPresence(name, true), 30_000);
  return client;
}

export const connectCost: Scenario<'sockets' | 'members', unknown> = {
  file: 'connect-cost',
  ints: { sockets: ['sockets', 4000, 40, 10, 50_000], members: ['members', 5, 5, 1, 1000] },
  flags: ['profile'],
  measure: (settings, { profile }) =>
    connectCostScenario({ ...settings, profileDir: profile && resolve(profile) }),
};

/** `members` per room; `profileDir`: where the replica writes its V8 CPU profile, if anywhere. */
type ConnectCostSettings = Record<'sockets' | 'members', number> & { profileDir?: string };

/** Runs the connects (see the file's comment) and returns the figures. */
export async function connectCostScenario({ sockets, members, profileDir }: ConnectCostSettings) {
  log(`== Connect cost: ${sockets} sockets (credentials + socket + join), rooms of ${members}`);
  return withServer(
    () => startServer('taco', 1, profileDir),
    async ({ cluster }) => {
      const replica = cluster?.replicas[0];
      if (!replica?.pid) throw new Error('the replica did not start');
      const redis = new Redis(cluster?.redis?.url ?? '', { lazyConnect: true });
      const open: RawClient[] = [];
      try {
        await redis.connect();
        const tag = `cost-${Date.now().toString(36)}`;
        const traced = await traceConnects(redis, replica.url, tag);
        const statsBefore = await commandStats(redis);
        const window = cpuWindow({ replica: [replica.pid] });
        const ids = Array.from({ length: sockets }, (_, id) => id);
        const { opened, tally } = await openAll(ids, CONCURRENCY, (id) =>
          connectOne(replica.url, `${tag}-${Math.floor(id / members)}`, `user-${id % members}`),
        );
        open.push(...opened);
        const { failed } = tally;
        const { total: cpuSeconds, wallSeconds: seconds } = window();
        const commands = commandsPer(await commandStats(redis), statsBefore, sockets, 0.01);
        const report = {
          ...stamp('connectCost'),
          sockets,
          members,
          failed,
          seconds: round(seconds, 2),
          replicaCpuMsPerConnect: round((cpuSeconds * 1000) / sockets, 3),
          redisCommandsPerConnect: round(commands.sum, 2),
          redisCommandsByCommand: commands.byCommand,
          traced,
        };
        log(
          [
            `  ${sockets - failed} connected (${failed} failed) in ${report.seconds} s; replica CPU ${report.replicaCpuMsPerConnect} ms per connect`,
            `  Redis per connect: ${report.redisCommandsPerConnect} commands ${JSON.stringify(commands.byCommand)}`,
          ].join('\n'),
        );
        return report;
      } finally {
        for (const client of open) client.socket.terminate();
        redis.disconnect();
      }
    },
  );
}
