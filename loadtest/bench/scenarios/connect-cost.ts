/**
 * `npm run bench -- --only connectCost`: what one connect costs Taco Chat. `--sockets` clients
 * (4,000 by default, 64 at a time) each ask one replica for credentials and open a room socket
 * (rooms of `--members`) until the server's own presence frame arrives, the way the bench's
 * idle workload does, with credentials and sockets on the same replica. Reports, per connect:
 * the replica's CPU ms (/proc), Redis commands (INFO commandstats, commands inside scripts
 * included) and the replica's Redis round trips by command (its own
 * taco_redis_round_trip_seconds counts), and the wall time of the whole run. `--profile DIR`
 * writes the replica's V8 CPU profile there (summarize it with profile-summary.ts).
 *
 *   npm run bench -- --only connectCost [--sockets 4000] [--members 5] [--profile /tmp/prof]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiPath, FrameType } from '@taco/protocol';
import Redis from 'ioredis';
import WebSocket from 'ws';
import { startCluster } from '../../../infra/cluster/cluster';
import { totalCpuSeconds } from '../proc-stats';
import { machine } from '../report';
import {
  commandStats,
  credentials,
  intOption,
  log,
  round,
  SCENARIO_ENV,
  writeReport,
} from './common';

const CONCURRENCY = 64;
const HOOKS = resolve(__dirname, '..', 'server-hooks.cjs');

/** Round trips by command, from a replica's taco_redis_round_trip_seconds_count series. */
async function roundTrips(replicaUrl: string): Promise<Map<string, number>> {
  const response = await fetch(`${replicaUrl}${ApiPath.metrics}`);
  const counts = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('taco_redis_round_trip_seconds_count{')) continue;
    const command = /command="([^"]+)"/.exec(line)?.[1] ?? '?';
    counts.set(command, (counts.get(command) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

function perConnect(
  after: Map<string, number>,
  before: Map<string, number>,
  sockets: number,
): Record<string, number> {
  const result: [string, number][] = [];
  for (const [command, calls] of after) {
    const each = (calls - (before.get(command) ?? 0)) / sockets;
    if (each >= 0.01) result.push([command, round(each, 2) ?? 0]);
  }
  return Object.fromEntries(result.sort((a, b) => b[1] - a[1]));
}

const total = (record: Record<string, number>) =>
  round(
    Object.values(record).reduce((sum, value) => sum + value, 0),
    2,
  );

function connectOne(wsBase: string, httpBase: string, room: string, name: string) {
  return credentials(httpBase, room, name).then(
    (token) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`${wsBase}${ApiPath.roomSocket(room, token)}`, {
          perMessageDeflate: false,
        });
        ws.on('message', (data: Buffer) => {
          const frame = JSON.parse(data.toString('utf8')) as { type?: number; sender?: string };
          if (frame.type === FrameType.Presence && frame.sender === name) resolve(ws);
        });
        ws.once('error', reject);
        ws.once('close', (code) => reject(new Error(`closed with ${code}`)));
      }),
  );
}

export async function runConnectCost(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      sockets: { type: 'string' },
      members: { type: 'string' },
      profile: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const sockets = intOption('sockets', values.sockets, 4000, 10, 50_000);
  const members = intOption('members', values.members, 5, 1, 1000);
  const profileDir = values.profile === undefined ? undefined : resolve(values.profile);
  log(`== Connect cost: ${sockets} sockets (credentials + socket + join), rooms of ${members}`);
  const cluster = await startCluster({
    replicas: 1,
    env: {
      ...SCENARIO_ENV,
      ...(profileDir ? { NODE_OPTIONS: `--require ${HOOKS}`, BENCH_PROFILE_DIR: profileDir } : {}),
    },
    output: 'quiet',
  });
  const redis = new Redis(cluster.redis?.url ?? '', { lazyConnect: true });
  const open: WebSocket[] = [];
  try {
    await redis.connect();
    const replica = cluster.replicas[0];
    if (!replica?.pid) throw new Error('the replica did not start');
    const pid = replica.pid;
    const wsBase = replica.url.replace(/^http/, 'ws');
    const tag = `cost-${Date.now().toString(36)}`;
    const statsBefore = await commandStats(redis);
    const tripsBefore = await roundTrips(replica.url);
    const cpuBefore = totalCpuSeconds([pid]);
    const started = performance.now();
    let next = 0;
    let failed = 0;
    const worker = async () => {
      while (next < sockets) {
        const id = next++;
        try {
          open.push(
            await connectOne(
              wsBase,
              replica.url,
              `${tag}-${Math.floor(id / members)}`,
              `user-${id % members}`,
            ),
          );
        } catch {
          failed++;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = totalCpuSeconds([pid]) - cpuBefore;
    const commands = perConnect(await commandStats(redis), statsBefore, sockets);
    // The metrics call itself is one more GET of the metrics, not a Redis round trip.
    const trips = perConnect(await roundTrips(replica.url), tripsBefore, sockets);
    const report = {
      scenario: 'connectCost',
      date: new Date().toISOString(),
      machine: machine(),
      sockets,
      members,
      failed,
      seconds: round(seconds, 2),
      replicaCpuMsPerConnect: round((cpuSeconds * 1000) / sockets, 3),
      redisCommandsPerConnect: total(commands),
      redisCommandsByCommand: commands,
      redisRoundTripsPerConnect: total(trips),
      redisRoundTripsByCommand: trips,
    };
    log(
      [
        `  ${sockets - failed} connected (${failed} failed) in ${report.seconds} s; replica CPU ${report.replicaCpuMsPerConnect} ms per connect`,
        `  Redis per connect: ${report.redisCommandsPerConnect} commands ${JSON.stringify(commands)}`,
        `  round trips per connect: ${report.redisRoundTripsPerConnect} ${JSON.stringify(trips)}`,
      ].join('\n'),
    );
    log(`JSON: ${writeReport('connect-cost', values.out, report)}`);
  } finally {
    for (const ws of open) ws.terminate();
    redis.disconnect();
    await cluster.stop();
  }
}
