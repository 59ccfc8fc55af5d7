/**
 * `npm run bench`: Taco Chat, Socket.IO 4 and a raw ws ceiling side by side on this machine, each
 * as 2 processes + redis-server, loaded by separate client processes. Prints one table per
 * workload, the ratios, and writes every figure to loadtest/results/bench-latest.json.
 *
 *   npm run bench                       # default sizes (BENCH_SCALE, see README)
 *   npm run bench -- --smoke            # tiny sizes, seconds: proves every part runs
 *   BENCH_SCALE=1 npm run bench         # the full sizes
 *   npm run bench -- --out report.json  # another place for the JSON
 *   npm run bench -- --only fanout --servers taco,raw --profile /tmp/prof
 *                                       # one workload, some servers, V8 CPU profiles of each
 *                                       # server process (summarize: tsx loadtest/bench/profile-summary.ts /tmp/prof)
 *   npm run bench -- --only cluster,pubsub
 *                                       # Taco Chat on a Redis Cluster beside one Redis, and
 *                                       # PUBLISH vs SPUBLISH as the cluster grows
 *   npm run bench -- --only manyRooms --rate 8 --seconds 20
 *                                       # hold one rate instead of searching: CPU per delivery
 *                                       # of each server at equal load, steady-state profiles
 *   npm run bench -- --only slowReader --seconds 60
 *                                       # paused readers attack one replica (scenarios/slow-reader.ts)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchPlan } from '../workloads/workloads';
import {
  type ClusterFigures,
  type PubSubFigures,
  runClusterComparison,
  runPubSubBench,
} from './cluster-bench';
import {
  type BenchReport,
  machine,
  type Outcome,
  ratios,
  render,
  SERVER_IDS,
} from './report';
import {
  type IdleFigures,
  type RateFigures,
  runIdleWorkload,
  runRateWorkload,
  type RunSettings,
} from './run-workload';
import { runScenario } from './scenarios';
import { type RunningServer, SERVER_NAMES, type ServerId, startServer } from './servers';

/** Default BENCH_SCALE: the whole run stays within about five minutes on two cores. */
const DEFAULT_SCALE = 0.4;

const TOPOLOGY =
  'Topology: each server is 2 processes on 127.0.0.1 sharing one redis-server; load clients ' +
  'address each process directly by port (no nginx in the path), members spread across both. ' +
  'Server CPU = every server process + redis-server.';

function parseScale(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SCALE;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > 1) {
    throw new Error(`BENCH_SCALE must be a number above 0 and at most 1 (got "${text}")`);
  }
  return value;
}

let current: RunningServer | null = null;

const WORKLOAD_IDS = ['fanout', 'manyRooms', 'idle', 'cluster', 'pubsub'] as const;

function parseList<T extends string>(
  name: string,
  text: string | undefined,
  all: readonly T[],
): T[] {
  if (text === undefined) return [...all];
  const wanted = text.split(',').map((item) => item.trim());
  const unknown = wanted.filter((item) => !all.includes(item as T));
  if (unknown.length > 0)
    throw new Error(`--${name}: unknown ${unknown.join(', ')} (known: ${all.join(', ')})`);
  return wanted as T[];
}

/** `--rate R [--seconds S]`: hold R messages/s per room for S seconds (default 10), no search. */
function parseFixed(rate: string | undefined, seconds: string | undefined): RunSettings['fixed'] {
  if (rate === undefined) {
    if (seconds !== undefined) throw new Error('--seconds goes with --rate');
    return undefined;
  }
  const roomRate = Number(rate);
  const duration = Number(seconds ?? 10);
  if (!(roomRate > 0) || !Number.isFinite(roomRate)) {
    throw new Error(`--rate must be a positive number of messages/s per room (got "${rate}")`);
  }
  if (!Number.isInteger(duration) || duration < 1 || duration > 600) {
    throw new Error(`--seconds must be a whole number from 1 to 600 (got "${seconds ?? ''}")`);
  }
  return { roomRate, seconds: duration };
}

let profileDir: string | undefined;

async function withServer<T>(
  id: ServerId,
  replicas: number,
  run: (server: RunningServer) => Promise<T>,
): Promise<Outcome<T>> {
  try {
    current = await startServer(id, replicas, profileDir);
    return { figures: await run(current), error: null };
  } catch (error) {
    return { figures: null, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await current?.stop();
    current = null;
  }
}

async function settle<T>(running: Promise<T>): Promise<Outcome<T>> {
  try {
    return { figures: await running, error: null };
  } catch (error) {
    return { figures: null, error: error instanceof Error ? error.message : String(error) };
  }
}

async function main(): Promise<void> {
  // `--only slowReader` and `--only storm` are scenarios of their own (loadtest/bench/scenarios).
  if (await runScenario(process.argv.slice(2))) return;
  const { values } = parseArgs({
    options: {
      smoke: { type: 'boolean', default: false },
      out: { type: 'string' },
      clients: { type: 'string' },
      only: { type: 'string' },
      servers: { type: 'string' },
      profile: { type: 'string' },
      rate: { type: 'string' },
      seconds: { type: 'string' },
    },
  });
  const workloads = parseList('only', values.only, WORKLOAD_IDS);
  const servers = parseList('servers', values.servers, SERVER_IDS);
  profileDir = values.profile === undefined ? undefined : resolve(values.profile);
  const started = Date.now();
  const plan = benchPlan(parseScale(process.env.BENCH_SCALE), values.smoke);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const settings: RunSettings = {
    clients: Number(values.clients ?? 2),
    connectConcurrency: 64,
    drainMs: plan.drainMs,
    settleMs: plan.smoke ? 300 : 1000,
    bodyBytes: plan.bodyBytes,
    clientSaturation: plan.clientSaturation,
    p99LimitMs: plan.p99LimitMs,
    loadFractions: plan.loadFractions,
    fixed: parseFixed(values.rate, values.seconds),
    log,
  };

  const results = {
    fanout: {} as Record<ServerId, Outcome<RateFigures>>,
    manyRooms: {} as Record<ServerId, Outcome<RateFigures>>,
    idle: {} as Record<ServerId, Outcome<IdleFigures>>,
  };
  const skipped = (): Outcome<never> => ({ figures: null, error: null });
  for (const id of SERVER_IDS) {
    results.fanout[id] = skipped();
    results.manyRooms[id] = skipped();
    results.idle[id] = skipped();
  }
  for (const workload of [plan.fanout, plan.manyRooms]) {
    if (!workloads.includes(workload.id)) continue;
    log(`\n== ${workload.title}`);
    for (const id of servers) {
      log(`  ${SERVER_NAMES[id]}`);
      results[workload.id][id] = await withServer(id, workload.replicas, (server) =>
        runRateWorkload(workload, server, settings),
      );
      const error = results[workload.id][id].error;
      if (error !== null) log(`    error: ${error}`);
    }
  }
  if (workloads.includes('idle')) log(`\n== ${plan.idle.title}`);
  for (const id of workloads.includes('idle') ? servers : []) {
    log(`  ${SERVER_NAMES[id]}`);
    // Same topology as the other workloads (2 processes); every connection goes to the first.
    results.idle[id] = await withServer(id, 2, (server) =>
      runIdleWorkload(plan.idle, server, settings),
    );
    const error = results.idle[id].error;
    if (error !== null) log(`    error: ${error}`);
  }

  let cluster: Outcome<ClusterFigures> = skipped();
  if (workloads.includes('cluster')) {
    log(`\n== ${plan.cluster.title}`);
    cluster = await settle(runClusterComparison(plan.cluster, settings, profileDir));
  }
  let pubsub: Outcome<PubSubFigures> = skipped();
  if (workloads.includes('pubsub')) {
    log(`\n== ${plan.pubsub.title}`);
    pubsub = await settle(runPubSubBench(plan.pubsub, log));
    if (pubsub.error !== null) log(`    error: ${pubsub.error}`);
  }

  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: machine(),
    plan,
    topology: TOPOLOGY,
    results: { ...results, cluster, pubsub },
    ratios: ratios(results),
    seconds: (Date.now() - started) / 1000,
  };
  log(`\n${render(report)}`);
  const out = resolve(values.out ?? resolve(__dirname, '..', 'results', 'bench-latest.json'));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  log(`JSON: ${out}`);
}

const interrupt = () => {
  void (current?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
};
process.once('SIGINT', interrupt);
process.once('SIGTERM', interrupt);

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
