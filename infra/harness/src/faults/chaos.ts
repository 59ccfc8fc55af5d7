/** `npm run chaos`: every correctness scenario of the fault suite, and its report. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Cluster, type ClusterOptions, startCluster } from '../cluster';
import { REPO_ROOT } from '../environment';
import { floodScenario, fuzzScenario } from './abuse';
import { redisMasterKillScenario, redisScenario, slotMoveScenario } from './redis';
import { replicaScenario } from './replica';
import { slowConsumerScenario } from './slow-reader';
import { type ChaosOptions, SCENARIO_ENV, type ScenarioResult } from './verdict';

/** The scenarios' limits, but a message rate that lets their chatter through and stops a flood. */
const CHAOS_ENV = { ...SCENARIO_ENV, MESSAGE_BURST: '20', MESSAGES_PER_SECOND: '10' };

type Scenario = [string, (cluster: Cluster) => Promise<ScenarioResult>];

/** Runs every fault and abuse scenario against real processes and reports what users saw. */
export async function runChaos(
  options: ChaosOptions,
  log: (line: string) => void = () => undefined,
) {
  const results: ScenarioResult[] = [];
  const onCluster = async (clusterOptions: ClusterOptions, scenarios: Scenario[]) => {
    const cluster = await startCluster(clusterOptions);
    try {
      for (const [name, run] of scenarios) {
        log(`running: ${name}`);
        results.push(await run(cluster));
      }
    } finally {
      await cluster.stop();
    }
  };
  await onCluster({ replicas: 3, env: CHAOS_ENV }, [
    ['fuzz', (cluster) => fuzzScenario(cluster, options)],
    ['replica SIGKILL', (cluster) => replicaScenario(cluster, options, 'SIGKILL')],
    ['replica SIGTERM', (cluster) => replicaScenario(cluster, options, 'SIGTERM')],
    ['Redis restart', (cluster) => redisScenario(cluster, options, 'restart')],
    ['Redis down', (cluster) => redisScenario(cluster, options, 'down')],
    ['Redis paused', (cluster) => redisScenario(cluster, options, 'paused')],
    ['client flood', (cluster) => floodScenario(cluster, options)],
  ]);
  await onCluster({ replicas: 1, redis: false, env: SCENARIO_ENV }, [
    ['slow consumer', (cluster) => slowConsumerScenario(cluster, options)],
  ]);
  // The same room traffic on a Redis Cluster (3 masters + 3 replicas), with durable
  // acknowledgement unless told otherwise, and a wait longer than a failover.
  const waitReplicas = options.redisWaitReplicas ?? 1;
  const durable = { REDIS_WAIT_REPLICAS: String(waitReplicas), REDIS_WAIT_TIMEOUT_MS: '10000' };
  await onCluster({ replicas: 3, redisCluster: true, env: { ...CHAOS_ENV, ...durable } }, [
    [
      `Redis master SIGKILL (REDIS_WAIT_REPLICAS=${waitReplicas})`,
      (cluster) => redisMasterKillScenario(cluster, options),
    ],
    ['Redis slot move', (cluster) => slotMoveScenario(cluster, options)],
  ]);
  return {
    date: new Date().toISOString(),
    short: options.short,
    results,
    /**
     * Crashes, acknowledged messages missing from history, refused messages found stored,
     * duplicates shown: all must be 0.
     */
    passed: results.every(
      (r) =>
        r.crashes === 0 && r.missingAcked === 0 && r.refusedStored === 0 && r.duplicatesShown === 0,
    ),
  };
}

export type ChaosReport = Awaited<ReturnType<typeof runChaos>>;

const COLUMNS: [string, (r: ScenarioResult) => unknown][] = [
  ['scenario', (r) => r.scenario],
  ['crashes', (r) => r.crashes],
  ['acked', (r) => r.acked],
  ['missing acked', (r) => r.missingAcked],
  ['duplicates shown', (r) => r.duplicatesShown],
  ['refused', (r) => r.refused],
  ['refused, stored', (r) => r.refusedStored],
  ['reconnects', (r) => r.reconnects],
  ['reconnect p50', (r) => (r.reconnectP50Ms === null ? '—' : `${r.reconnectP50Ms} ms`)],
  ['reconnect max', (r) => (r.reconnectMaxMs === null ? '—' : `${r.reconnectMaxMs} ms`)],
];

/** The report as a table people can read. */
export function formatReport(report: ChaosReport): string {
  const rows = [
    COLUMNS.map(([title]) => title),
    ...report.results.map((r) => COLUMNS.map(([, cell]) => String(cell(r)))),
  ];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [
    line(rows[0] ?? []),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.slice(1).map(line),
    '',
    ...report.results.flatMap((r) => r.notes.map((note) => `${r.scenario}: ${note}`)),
    '',
    report.passed
      ? 'All targets met: 0 crashes, 0 acknowledged messages missing, 0 refused messages stored, 0 duplicates shown.'
      : 'TARGETS MISSED',
  ].join('\n');
}

export function writeReport(report: ChaosReport): string {
  const dir = join(REPO_ROOT, 'artifacts');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'chaos-report.json');
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
