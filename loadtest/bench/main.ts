/**
 * `npm run bench`: Taco Chat, Socket.IO 4 and a raw ws ceiling side by side on this machine, each
 * as 2 processes + redis-server, loaded by separate client processes. Prints one table per
 * workload, the ratios, and writes every figure to loadtest/results/bench-latest.json.
 * Options (`--smoke`, `--only`, `--servers`, `--rate`, `--profile`, `BENCH_SCALE`…) and what each
 * figure means: loadtest/README.md; `--only slowReader|storm|connectCost`: scenarios/.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchPlan, type RateWorkload } from '../workloads/workloads';
import { runClusterComparison } from './cluster-bench';
import { runPubSubBench } from './pubsub-bench';
import { type RunSettings, settle, skipped, stopRunning, withServer } from './session';
import { benchReport, render } from './report';
import { runIdleWorkload, runRateWorkload, runUpkeep } from './run-workload';
import {
  intOption,
  log,
  positive,
  runScenario,
  type Scenario,
  scenarioFlags,
  type Values,
  writeJson,
} from './scenarios/common';
import { connectCost } from './scenarios/connect-cost';
import { slowReader } from './scenarios/slow-reader';
import { storm } from './scenarios/storm';
import type { RunningServer, ServerId } from './servers';
import { SERVER_IDS, SERVER_NAMES, startServer } from './servers';

/** Default BENCH_SCALE: the whole run stays within about five minutes on two cores. */
const DEFAULT_SCALE = 0.4;

const WORKLOAD_IDS = [
  ...['fanout', 'manyRooms', 'manyRoomsPoisson', 'idle', 'upkeep', 'cluster', 'pubsub'],
] as const;
type WorkloadId = (typeof WORKLOAD_IDS)[number];

function parseList<T extends string>(name: string, text: string | undefined, all: readonly T[]) {
  const wanted = text?.split(',').map((item) => item.trim()) ?? all;
  const unknown = wanted.filter((item) => !all.includes(item as T));
  if (unknown.length === 0) return wanted as T[];
  throw new Error(`--${name}: unknown ${unknown.join(', ')} (known: ${all.join(', ')})`);
}

/** `--rate R [--seconds S]`: hold R messages/s per room for S seconds (default 10), no search. */
function parseFixed(rate: string | undefined, seconds: string | undefined): RunSettings['fixed'] {
  if (rate !== undefined) {
    const roomRate = positive('--rate (messages/s per room)', rate, 0, Number.MAX_VALUE);
    return { roomRate, seconds: intOption('seconds', seconds, 10, 1, 600) };
  }
  if (seconds !== undefined) throw new Error('--seconds goes with --rate');
  return undefined;
}

/** The scenarios (scenarios/): each a run of its own, with options of its own. */
const SCENARIOS: Record<string, Scenario<string, unknown>> = { connectCost, slowReader, storm };

const BENCH_OPTIONS = [
  ...['smoke', 'out', 'clients', 'only', 'servers', 'profile', 'rate', 'seconds'],
  ...['warmup', 'window'],
];

/**
 * Every option of the bench and of the scenarios, each then checked against what the run takes:
 * `--only` naming only scenarios (several: one after another) runs them, else the benchmark.
 */
function parseCommandLine() {
  const names = [...BENCH_OPTIONS, ...Object.values(SCENARIOS).flatMap(scenarioFlags)];
  const options = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
  const { values } = parseArgs({ options: { ...options, smoke: { type: 'boolean' } } });
  const { smoke = false, ...rest } = values as Values & { smoke?: boolean };
  const only = rest.only?.split(',') ?? [];
  const scenarios = only.flatMap((name) => SCENARIOS[name] ?? []);
  const isScenarios = only.length > 0 && scenarios.length === only.length;
  const takes = isScenarios ? scenarios.flatMap(scenarioFlags) : BENCH_OPTIONS;
  const unknown = Object.keys(values).filter((name) => !takes.includes(name));
  if (unknown.length > 0) throw new Error(`Unknown option --${unknown.join(', --')}`);
  return { values: rest as Values, smoke, scenarios: isScenarios ? scenarios : [] };
}

async function main(): Promise<void> {
  const { values, smoke, scenarios } = parseCommandLine();
  for (const scenario of scenarios) await runScenario(scenario, values, smoke);
  if (scenarios.length > 0) return;
  const workloads = parseList('only', values.only, WORKLOAD_IDS);
  const servers = parseList('servers', values.servers, SERVER_IDS);
  const started = Date.now();
  const seconds = (name: 'warmup' | 'window') => intOption(name, values[name], undefined, 1, 600);
  const scale = positive('BENCH_SCALE', process.env.BENCH_SCALE, DEFAULT_SCALE, 1);
  const plan = benchPlan(scale, smoke, { warmup: seconds('warmup'), window: seconds('window') });
  const settings: RunSettings = {
    ...plan,
    clients: Number(values.clients ?? 2),
    settleMs: plan.smoke ? 300 : 1000,
    fixed: parseFixed(values.rate, values.seconds),
    profileDir: values.profile === undefined ? undefined : resolve(values.profile),
    log,
  };
  /**
   * One workload on each server of `--servers` in the order of `only` (the rest stay skipped), if
   * `--only` has it.
   */
  const perServer = async <W extends { id: WorkloadId; title: string; replicas: number }, T>(
    workload: W,
    run: (workload: W, server: RunningServer, settings: RunSettings) => Promise<T>,
    only: readonly ServerId[] = SERVER_IDS,
  ) => {
    const outcomes = { taco: skipped<T>(), socketio: skipped<T>(), raw: skipped<T>() };
    if (!workloads.includes(workload.id)) return outcomes;
    log(`\n== ${workload.title}`);
    for (const server of only.filter((id) => servers.includes(id))) {
      log(`  ${SERVER_NAMES[server]}`);
      const start = () => startServer(server, workload.replicas, settings.profileDir);
      const measure = () => withServer(start, (running) => run(workload, running, settings));
      outcomes[server] = await settle(measure, log);
    }
    return outcomes;
  };
  /**
   * A rate workload, the raw ceiling first: Taco Chat's load steps then run at fractions of raw's
   * capacity, so that each step compares the two at the same offered load (Socket.IO's at
   * fractions of its own).
   */
  const rated = (workload: RateWorkload) => {
    let rawCapacity: number | undefined;
    const run = async (w: RateWorkload, server: RunningServer, runSettings: RunSettings) => {
      const stepBase = server.id === 'taco' ? rawCapacity : undefined;
      const figures = await runRateWorkload(w, server, { ...runSettings, stepBase });
      if (server.id === 'raw') rawCapacity = figures.best?.roomRate;
      return figures;
    };
    return perServer(workload, run, ['raw', 'taco', 'socketio']);
  };
  const results = {
    fanout: await rated(plan.fanout),
    manyRooms: await rated(plan.manyRooms),
    manyRoomsPoisson: await rated(plan.manyRoomsPoisson),
    // Same topology as the other workloads (2 processes); every connection goes to the first.
    idle: await perServer({ ...plan.idle, replicas: 2 }, runIdleWorkload),
    // The raw peer is the yardstick; Socket.IO has no heartbeat frame of Taco Chat's.
    upkeep: await perServer(plan.upkeep, runUpkeep, ['taco', 'raw']),
  };
  /** A part that runs once, on servers of its own, if `--only` has it. */
  const once = async <W extends { id: WorkloadId; title: string }, T>(
    part: W,
    run: (part: W, settings: RunSettings) => Promise<T>,
  ) => {
    if (!workloads.includes(part.id)) return skipped();
    log(`\n== ${part.title}`);
    return settle(() => run(part, settings), log);
  };
  const cluster = await once(plan.cluster, runClusterComparison);
  const pubsub = await once(plan.pubsub, runPubSubBench);

  const report = benchReport(plan, { ...results, cluster, pubsub }, started);
  log(`\n${render(report)}`);
  log(`JSON: ${writeJson(values.out, 'bench-latest.json', report)}`);
}

const interrupt = () => {
  void stopRunning().finally(() => process.exit(130));
};
process.once('SIGINT', interrupt);
process.once('SIGTERM', interrupt);

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
