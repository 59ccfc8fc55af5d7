/**
 * `npm run bench`: Taco Chat, Socket.IO 4 and a raw ws ceiling side by side on this machine, each
 * as 2 processes + redis-server, loaded by separate client processes. Prints one table per
 * workload, the ratios, and writes every figure to loadtest/results/bench-latest.json.
 * Options (`--smoke`, `--only`, `--servers`, `--rate`, `--profile`, `BENCH_SCALE`…) and what each
 * figure means: loadtest/README.md; `--only slowReader|storm|connectCost`: scenarios/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchPlan, type RateWorkload } from '../workloads/workloads';
import { type ClusterFigures, runClusterComparison } from './cluster-bench';
import { type Outcome, settle, skipped } from './outcome';
import { type PubSubFigures, runPubSubBench } from './pubsub-bench';
import { type RunSettings, stopRunning, withServer } from './session';
import { type BenchReport, machine, ratios, render, SERVER_IDS } from './report';
import {
  type IdleFigures,
  type RateFigures,
  runIdleWorkload,
  runRateWorkload,
} from './run-workload';
import { intOption, log } from './scenarios/common';
import { runConnectCost } from './scenarios/connect-cost';
import { runSlowReader } from './scenarios/slow-reader';
import { runStorm } from './scenarios/storm';
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
  if (!(roomRate > 0) || !Number.isFinite(roomRate)) {
    throw new Error(`--rate must be a positive number of messages/s per room (got "${rate}")`);
  }
  return { roomRate, seconds: intOption('seconds', seconds, 10, 1, 600) };
}

/** The scenarios: each a run of its own with options of its own (see each file). */
const SCENARIOS: Record<string, (argv: string[]) => Promise<void>> = {
  connectCost: runConnectCost,
  slowReader: runSlowReader,
  storm: runStorm,
};

/**
 * Runs the scenarios `--only` names (one, or several separated by commas, one after another), if
 * it names only scenarios; false when it names none. `--smoke` runs each at tiny sizes.
 */
async function runScenarios(argv: string[]): Promise<boolean> {
  const at = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  const arg = argv[at];
  const names = (arg?.includes('=') ? arg.slice(7) : (argv[at + 1] ?? '')).split(',');
  const scenarios = names.map((name) => SCENARIOS[name]);
  if (at < 0 || !scenarios.every((scenario) => scenario !== undefined)) return false;
  for (const scenario of scenarios) await scenario?.(argv);
  return true;
}

async function main(): Promise<void> {
  if (await runScenarios(process.argv.slice(2))) return;
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
  const profileDir = values.profile === undefined ? undefined : resolve(values.profile);
  const started = Date.now();
  const plan = benchPlan(parseScale(process.env.BENCH_SCALE), values.smoke);
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

  const none = <T>(): Record<ServerId, Outcome<T>> => ({
    taco: skipped(),
    socketio: skipped(),
    raw: skipped(),
  });
  /** One workload on each server of `--servers` in turn (the rest stay skipped). */
  const perServer = async <T>(
    title: string,
    replicas: number,
    run: (server: RunningServer) => Promise<T>,
  ) => {
    const outcomes = none<T>();
    log(`\n== ${title}`);
    for (const id of servers) {
      log(`  ${SERVER_NAMES[id]}`);
      const start = () => startServer(id, replicas, profileDir);
      outcomes[id] = await settle(() => withServer(start, run), log);
    }
    return outcomes;
  };
  const rate = (workload: RateWorkload) =>
    workloads.includes(workload.id)
      ? perServer(workload.title, workload.replicas, (server) =>
          runRateWorkload(workload, server, settings),
        )
      : none<RateFigures>();
  const results = {
    fanout: await rate(plan.fanout),
    manyRooms: await rate(plan.manyRooms),
    // Same topology as the other workloads (2 processes); every connection goes to the first.
    idle: workloads.includes('idle')
      ? await perServer(plan.idle.title, 2, (server) =>
          runIdleWorkload(plan.idle, server, settings),
        )
      : none<IdleFigures>(),
  };

  let cluster: Outcome<ClusterFigures> = skipped();
  if (workloads.includes('cluster')) {
    log(`\n== ${plan.cluster.title}`);
    cluster = await settle(() => runClusterComparison(plan.cluster, settings, profileDir));
  }
  let pubsub: Outcome<PubSubFigures> = skipped();
  if (workloads.includes('pubsub')) {
    log(`\n== ${plan.pubsub.title}`);
    pubsub = await settle(() => runPubSubBench(plan.pubsub, log), log);
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
  void stopRunning().finally(() => process.exit(130));
};
process.once('SIGINT', interrupt);
process.once('SIGTERM', interrupt);

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
