/** Turns the figures of a run into the printed tables, the ratios and the JSON report. */
import Table from 'cli-table3';
import type { BenchPlan } from '../workloads/workloads';
import type { ClusterFigures, ClusterRun } from './cluster-bench';
import type { PubSubFigures } from './pubsub-bench';
import { machine, sum } from './scenarios/common';
import { DISTURBED_CORES, type Outcome, per10k } from './session';
import type { IdleFigures, RateFigures, UpkeepFigures } from './run-workload';
import { SERVER_IDS, SERVER_NAMES, type ServerId } from './servers';

const TOPOLOGY =
  'Topology: each server is 2 processes on 127.0.0.1 sharing one redis-server; load clients ' +
  'address each process directly by port (no nginx in the path), members spread across both. ' +
  'Server CPU = every server process + redis-server.';

type PerServer<T> = Record<ServerId, Outcome<T>>;
/** What every server ran of each workload, by workload. */
type Results = Record<(typeof RATED)[number], PerServer<RateFigures>> & {
  idle: PerServer<IdleFigures>;
  upkeep: PerServer<UpkeepFigures>;
  cluster: Outcome<ClusterFigures>;
  pubsub: Outcome<PubSubFigures>;
};

type BenchReport = ReturnType<typeof benchReport>;

/** The JSON report of a run that started at `started` (ms). */
export const benchReport = (plan: BenchPlan, results: Results, started: number) => ({
  date: new Date().toISOString(),
  machine: machine(),
  plan,
  topology: TOPOLOGY,
  results,
  ratios: ratios(results),
  seconds: (Date.now() - started) / 1000,
});

const num = (value: number | null | undefined, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
/** Two figures in one cell: `a / b` (or `a + b`, with `join`). */
const two = (a: number | null | undefined, b: number | null | undefined, digits = 1, join = '/') =>
  `${num(a, digits)} ${join} ${num(b, digits)}`;
/** The workloads run on each server in turn; the first three are rate-searched. */
const RATED = ['fanout', 'manyRooms', 'manyRoomsPoisson'] as const;

/** A text table: the first column left-aligned, the others right-aligned. */
function textTable(title: string, head: string[], rows: string[][]): string {
  const table = new Table({
    head,
    colAligns: head.map((_, column) => (column === 0 ? 'left' : 'right')),
    style: { head: [], border: [], compact: true },
  });
  table.push(...rows);
  return `\n${title}\n${table.toString()}`;
}

/** Every fraction any server ran a load step at, in order. */
function loadFractions(results: PerServer<RateFigures>): number[] {
  const all = SERVER_IDS.flatMap((id) =>
    (results[id].figures?.loadSteps ?? []).map((step) => step.fraction),
  );
  return [...new Set(all)].sort((a, b) => a - b);
}

/** A row of a per-server table: a label, then a figure of each server's figures. */
type Row<T> = (label: string, pick: (figures: T) => string) => string[];

/**
 * A workload's table, one column per server ('error', '–' when not run, or the figure); none
 * when no server ran it (left out with --only).
 */
function serverTable<T>(
  title: string,
  results: PerServer<T>,
  rows: (row: Row<T>) => string[][],
): string[] {
  if (SERVER_IDS.every((id) => results[id].figures === null && results[id].error === null)) {
    return [];
  }
  const row: Row<T> = (label, pick) => [
    label,
    ...SERVER_IDS.map((id) => {
      const outcome = results[id];
      if (outcome.error !== null) return 'error';
      return outcome.figures ? pick(outcome.figures) : '–';
    }),
  ];
  return [textTable(title, ['', ...SERVER_IDS.map((id) => SERVER_NAMES[id])], rows(row))];
}

const rateRows = (fractions: number[]) => (row: Row<RateFigures>) => [
  row('delivered msg/s (all delivered, p99 ≤ limit)', (f) => num(f.deliveredPerSecond, 0)),
  row('  at offered msg/s per room', (f) => num(f.best?.roomRate ?? null, 0)),
  row('  search stopped by', (f) => f.stoppedBy),
  row('p50 latency at half load (ms)', (f) => num(f.p50MsAtHalf, 2)),
  row('p99 latency at half load (ms)', (f) => num(f.p99MsAtHalf, 2)),
  row('server CPU s per 10k deliveries', (f) => num(f.cpuSecondsPer10kDeliveries, 3)),
  ...fractions.flatMap((fraction) => {
    const at = (f: RateFigures) => f.loadSteps.find((step) => step.fraction === fraction);
    const label = `${Math.round(fraction * 100)} % of capacity`;
    return [
      row(`${label}: delivered msg/s`, (f) => num(at(f)?.deliveredPerSecond, 0)),
      row(`  p50 / p99 (ms)`, (f) => two(at(f)?.p50Ms, at(f)?.p99Ms)),
      row(`  CPU s per 10k deliveries (Redis)`, (f) => {
        const step = at(f);
        return step
          ? `${num(step.cpuSecondsPer10kDeliveries, 3)} (${num(per10k(step, step.redisCpuSeconds), 3)})`
          : '–';
      }),
    ];
  }),
  row("load clients' peak CPU (% of a core)", (f) => num(f.clientCpuPeak * 100, 0)),
  row('invalid steps (client saturated)', (f) =>
    String(f.steps.filter((step) => !step.valid).length),
  ),
  row('steps run again (disturbed machine)', (f) =>
    String(f.steps.filter((step) => step.repeat).length),
  ),
  row('outside load / steal, peak (cores)', (f) => two(f.outsideCoresPeak, f.stealCoresPeak, 2)),
];

const idleRows = (row: Row<IdleFigures>) => [
  row('connections held', (f) => String(f.connections)),
  row('memory per idle connection (KiB)', (f) => num(f.bytesPerConnection / 1024, 2)),
  row('RSS less young generation, before → after (MiB)', (f) =>
    two(f.rssBeforeBytes / 2 ** 20, f.rssAfterBytes / 2 ** 20, 1, '→'),
  ),
  row('connect time (s)', (f) => num(f.connectSeconds, 1)),
];

const upkeepRows = (row: Row<UpkeepFigures>) => [
  row('members joined (web client join)', (f) => String(f.members)),
  row('baseline, no member: replicas / Redis (CPU ms/s)', (f) =>
    two(f.baseline.replicaCores * 1000, f.baseline.redisCores * 1000),
  ),
  ...(['quiet', 'heartbeat'] as const).flatMap((key) => [
    row(`${key}: replica CPU ms/s per 1,000 members per replica`, (f) =>
      num(f[key].replicaMsPerSecondPer1k, 2),
    ),
    row(`${key}: Redis CPU ms/s per 1,000 members`, (f) => num(f[key].redisMsPerSecondPer1k, 2)),
    row(`${key}: outside load / steal (cores)`, (f) =>
      two(f[key].outsideCores, f[key].stealCores, 2),
    ),
  ]),
];

/** a ÷ b; none when a figure is missing, `b` is not above 0 or `a` below 0 (net upkeep in the noise). */
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || b === null || b === undefined || a < 0 || b <= 0 ? null : a / b;

/** Taco Chat's figure over each other server's, by figure. */
function ratios(results: Results) {
  type Pick = [string, (id: ServerId) => number | null | undefined];
  const picks: Pick[] = [
    ...RATED.flatMap((key): Pick[] => {
      const figures = (id: ServerId) => results[key][id].figures;
      return [
        [`${key}: delivered msg/s (higher is better)`, (id) => figures(id)?.deliveredPerSecond],
        [`${key}: p99 at half load (lower is better)`, (id) => figures(id)?.p99MsAtHalf],
        [
          `${key}: CPU per 10k deliveries (lower is better)`,
          (id) => figures(id)?.cpuSecondsPer10kDeliveries,
        ],
      ];
    }),
    [
      'idle: memory per connection (lower is better)',
      (id) => results.idle[id].figures?.bytesPerConnection,
    ],
    ...(['quiet', 'heartbeat'] as const).flatMap((key) =>
      (['replica', 'redis'] as const).map((part): Pick => [
        `upkeep, ${key}: ${part} CPU per 1,000 members (lower is better)`,
        (id) => results.upkeep[id].figures?.[key][`${part}MsPerSecondPer1k`],
      ]),
    ),
  ];
  return Object.fromEntries(
    picks.map(([name, pick]) => {
      const vsSocketIo = ratio(pick('taco'), pick('socketio'));
      return [name, { vsSocketIo, vsRaw: ratio(pick('taco'), pick('raw')) }];
    }),
  );
}

function clusterLines(title: string, outcome: Outcome<ClusterFigures>): string[] {
  if (outcome.figures === null && outcome.error === null) return [];
  if (outcome.figures === null) return [`\n${title}`, `error: ${outcome.error ?? ''}`];
  const names = { standalone: 'one Redis', viaNginx: '+ nginx', cluster: 'Redis Cluster' };
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const [key, name] of Object.entries(names)) {
    const run: Outcome<ClusterRun> = outcome.figures[key as keyof typeof names];
    if (run.figures === null) {
      notes.push(`${name}: error: ${run.error ?? 'not run'}`);
      continue;
    }
    const { idle, steps } = run.figures;
    const idleRedis = sum(Object.values(idle.redisCoresByNode));
    notes.push(
      `${name}, idle with ${idle.connections} connected: api ${num(idle.apiCores, 3)} cores, ` +
        `Redis ${num(idleRedis, 3)} cores${idle.nginxCores > 0 ? `, nginx ${num(idle.nginxCores, 3)} cores` : ''}`,
    );
    for (const step of steps) {
      rows.push([
        name,
        num(step.roomRate, 1),
        `${num(step.deliveredPerSecond, 0)} (${step.received}/${step.expected})`,
        two(step.p50Ms, step.p99Ms),
        num(step.cpuSecondsPer10kDeliveries, 3),
        num(step.apiMicrosPerDelivery, 2),
        `${num(step.redisMicrosPerDelivery, 2)} (${num(step.netRedisMicrosPerDelivery, 2)})`,
        step.nginxCpuSeconds > 0 ? num(step.nginxMicrosPerDelivery, 2) : '–',
        two(step.outsideCores, step.stealCores, 2, '+'),
      ]);
      const byNode = Object.entries(step.netRedisMicrosPerDeliveryByNode);
      if (byNode.length > 1) {
        const list = byNode.map(([node, micros]) => `${node} ${num(micros, 2)}`).join(', ');
        notes.push(
          `${name} at ${num(step.roomRate, 1)} msg/s/room, Redis µs per delivery by node, net of idle: ${list}`,
        );
      }
    }
  }
  const head = [
    ...['', 'msg/s/room', 'delivered/s (received/expected)', 'p50 / p99 (ms)'],
    ...['CPU s per 10k deliveries', 'µs per delivery: api', 'Redis (net of idle)', 'nginx'],
    'outside + steal (cores)',
  ];
  return [textTable(title, head, rows), ...notes];
}

function pubsubLines(title: string, outcome: Outcome<PubSubFigures>): string[] {
  if (outcome.figures === null && outcome.error === null) return [];
  if (outcome.figures === null) return [`\n${title}`, `error: ${outcome.error ?? ''}`];
  const head = ['masters', 'command', 'subscribers', 'delivered', 'Redis µs/message (all nodes)'];
  return [
    textTable(
      title,
      [...head, 'net of idle', 'per node', 'outside + steal (cores)'],
      outcome.figures.runs.map((run) => [
        String(run.masters),
        run.mode,
        String(run.subscribers),
        `${run.received}/${run.published * run.subscribers}`,
        num(run.redisMicrosPerMessage, 2),
        num(run.netMicrosPerMessage, 2),
        Object.values(run.redisMicrosPerMessageByNode)
          .map((micros) => num(micros, 1))
          .join(' / '),
        two(run.outsideCores, run.stealCores, 2, '+'),
      ]),
    ),
  ];
}

export function render(report: BenchReport): string {
  const { plan, results } = report;
  const parts = [
    `Taco Chat benchmark — ${report.date}`,
    `${report.machine.cpus} × ${report.machine.cpuModel}, ${report.machine.memoryGiB} GiB, Node ${report.machine.node}`,
    plan.smoke
      ? 'SMOKE RUN: tiny sizes, the figures only show that every part works.'
      : `Sizes scaled by BENCH_SCALE=${plan.scale} (rooms, members and connections; per-room rates unchanged).`,
    report.topology,
    'Load generator: Node load-client processes.',
    // Taco Chat's steps follow raw's capacity only when raw ran (main.ts, `rated`).
    ...(RATED.some((key) => results[key].raw.figures !== null)
      ? [
          "Load steps: fractions of each server's capacity, Taco Chat's of the raw ceiling's (raw " +
            'runs first), so that each step compares the two at the same offered load.',
        ]
      : []),
    ...RATED.flatMap((key) =>
      serverTable(plan[key].title, results[key], rateRows(loadFractions(results[key]))),
    ),
    ...serverTable(plan.idle.title, results.idle, idleRows),
    ...serverTable(plan.upkeep.title, results.upkeep, upkeepRows),
    ...clusterLines(plan.cluster.title, results.cluster),
    ...pubsubLines(plan.pubsub.title, results.pubsub),
  ];
  const shown = Object.entries(report.ratios).filter(
    ([, value]) => value.vsSocketIo !== null || value.vsRaw !== null,
  );
  if (shown.length > 0) {
    parts.push(
      textTable(
        'Ratios (Taco Chat ÷ other)',
        ['', '÷ Socket.IO', '÷ raw ws'],
        shown.map(([name, value]) => [name, num(value.vsSocketIo, 2), num(value.vsRaw, 2)]),
      ),
    );
  }
  const errors = ([...RATED, 'idle', 'upkeep'] as const).flatMap((key) =>
    SERVER_IDS.flatMap((id) => {
      const error = results[key][id].error;
      return error === null ? [] : [`${key} / ${SERVER_NAMES[id]}: ${error}`];
    }),
  );
  if (errors.length > 0) parts.push('\nErrors:', ...errors);
  const rated = RATED.flatMap((key) => SERVER_IDS.map((id) => results[key][id].figures));
  const peak = (pick: (figures: RateFigures) => number) =>
    Math.max(0, ...rated.map((figures) => (figures ? pick(figures) : 0)));
  const outside = peak((figures) => figures.outsideCoresPeak);
  const steal = peak((figures) => figures.stealCoresPeak);
  if (outside > DISTURBED_CORES || steal > DISTURBED_CORES) {
    parts.push(
      `\nWARNING: during some step, processes outside the benchmark used up to ${outside.toFixed(2)} ` +
        `cores and the hypervisor stole up to ${steal.toFixed(2)} cores; figures of such a step ` +
        'are not reliable. Compare the outside load / steal rows, and run again on a quiet machine.',
    );
  }
  parts.push(`\nTook ${report.seconds.toFixed(0)} s.`);
  return parts.join('\n');
}
