/**
 * `npm run bench -- --only storm`: the harness's reconnect storm (`reconnectStorm`: 2 replicas
 * behind nginx, `--clients` members in rooms of 5–50, one replica killed with SIGKILL while
 * messages flow), measured: time from the kill until every member is back and resumed;
 * bystanders' (members of the survivor, never disconnected) p50/p99 before and during the storm,
 * and the probe's (rooms of their own on the survivor, in a process ahead for the CPU); event-loop
 * delays; messages lost and shown twice; credential and ticket calls per reconnect; Redis commands
 * per reconnect (INFO commandstats over the storm, less the same time's worth of the warm-up's
 * steady traffic). Exits non-zero when a message was lost or doubled, or a member never came back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  metricValue,
  PROBE_NICE,
  reconnectStorm,
  ROOM_MIN,
  STORM_PHASES,
  type StormPhase,
  type StormSettings,
  count,
  emptyHistogram,
  merge,
} from '@taco/harness';
import Redis from 'ioredis';
import { commandStats, commandsPer, log, ms as p, round, type Scenario, stamp } from './common';

const LAG_POLL_MS = 500;

type StormInts = Exclude<keyof StormSettings, 'rate' | 'env'>;

export const storm: Scenario<StormInts, StormReport> = {
  file: 'storm',
  ints: {
    clients: ['clients', 2000, 100, ROOM_MIN, 20_000],
    warmupSeconds: ['warmup', 8, 3, 2, 300],
    processes: ['processes', 2, 1, 1, 8],
    bodyBytes: ['body', 200, 200, 50, 4000],
  },
  flags: ['rate'],
  measure: (settings, values, smoke) => {
    const rate = Number(values.rate ?? (smoke ? 4 : 0.5));
    if (!(rate > 0 && rate <= 50))
      throw new Error(`--rate must be above 0 and at most 50 (got "${values.rate}")`);
    return stormScenario({ ...settings, rate });
  },
  verdict: (report) => {
    if (report.everyoneBackSeconds === null) throw new Error('storm: not every client came back');
    if (report.lost > 0 || report.shownTwice > 0) {
      throw new Error('storm: messages were lost or shown twice');
    }
  },
};

/** Runs the storm with the bench's measurements and returns its figures. */
export async function stormScenario(settings: StormSettings) {
  const { clients, rate, warmupSeconds, processes, bodyBytes } = settings;
  const started = Date.now();
  log(
    `== Reconnect storm: ${clients} clients in rooms of ${ROOM_MIN}–50, ` +
      `${rate} msg/s per room, one of 2 replicas killed with SIGKILL`,
  );
  let redis: Redis | undefined;
  const stats: Record<'warm' | 'kill' | 'back', Map<string, number>> = {
    warm: new Map(),
    kill: new Map(),
    back: new Map(),
  };
  const timeOf = { warm: 0, kill: 0, back: 0 };
  // The survivor's worst event-loop delay, each poll (prom-client resets it per scrape), from the
  // kill until everyone is back.
  let survivorLagMs = 0;
  let watching: Promise<void> | undefined;
  let watch = false;
  const outcome = await reconnectStorm(settings, {
    at: async (point, cluster) => {
      if (point === 'warm') {
        redis = new Redis(cluster.redis?.url ?? '', { maxRetriesPerRequest: 1 });
      }
      if (point === 'back') {
        watch = false;
        await watching;
      }
      stats[point] = await commandStats(redis as Redis);
      timeOf[point] = Date.now();
      if (point === 'kill') {
        watch = true;
        const survivor = cluster.replicas[1]?.url ?? '';
        watching = (async () => {
          for (; watch; await sleep(LAG_POLL_MS)) {
            const lag = await metricValue(survivor, 'nodejs_eventloop_lag_max_seconds').catch(
              () => 0,
            );
            survivorLagMs = Math.max(survivorLagMs, lag * 1000);
          }
        })();
      }
    },
  });
  redis?.disconnect();
  log(
    `  connected ${clients} in ${outcome.connectSeconds.toFixed(1)} s; killed ${outcome.figures.killed} (SIGKILL)`,
  );
  log(
    outcome.backAt === null
      ? `  not everyone came back within 90 s: ${outcome.status.down} still down, ${outcome.status.gaveUp} gave up`
      : `  all ${outcome.status.everClosed} disconnected clients back and resumed ${outcome.stormSeconds.toFixed(1)} s after the kill`,
  );
  const measured = outcome.reports;
  const probe = outcome.probeReport;
  const histograms = Object.fromEntries(
    STORM_PHASES.map((phase) => {
      const histogram = emptyHistogram();
      for (const each of measured) merge(histogram, each.bystanders[phase]);
      return [phase, histogram];
    }),
  ) as Record<StormPhase, number[]>;
  // Steady traffic's share of the storm's commands, from the warm-up's rate.
  const warmSeconds = (timeOf.kill - timeOf.warm) / 1000;
  const steady = (command: string) =>
    (((stats.kill.get(command) ?? 0) - (stats.warm.get(command) ?? 0)) * outcome.stormSeconds) /
    warmSeconds;
  const { reconnects } = outcome.figures;
  const perReconnect = commandsPer(stats.back, stats.kill, reconnects, 0.05, steady);
  const eventLoop = (key: 'p99Ms' | 'maxMs') =>
    round(Math.max(...measured.map((each) => each.eventLoop.storm[key])), 0);
  const report = {
    ...stamp('storm'),
    settings: { clients, rooms: outcome.rooms, rate, warmupSeconds, processes, bodyBytes },
    ...outcome.figures,
    bystanderP50WarmMs: p(histograms.warm, 0.5),
    bystanderP99WarmMs: p(histograms.warm, 0.99),
    bystanderP50StormMs: p(histograms.storm, 0.5),
    bystanderP99StormMs: p(histograms.storm, 0.99),
    bystanderMessagesStorm: count(histograms.storm),
    // The probe: bystanders in a process of their own that never reconnects, ahead of the load
    // clients for the CPU when the system allowed it, so its figures are the survivor's delay
    // with as little of the load clients' own as one machine allows.
    probeAhead: outcome.probeAhead,
    probeP50WarmMs: p(probe.bystanders.warm, 0.5),
    probeP99WarmMs: p(probe.bystanders.warm, 0.99),
    probeP50StormMs: p(probe.bystanders.storm, 0.5),
    probeP99StormMs: p(probe.bystanders.storm, 0.99),
    probeMessagesStorm: count(probe.bystanders.storm),
    probeEventLoopMaxStormMs: round(probe.eventLoop.storm.maxMs, 0),
    survivorEventLoopMaxStormMs: round(survivorLagMs, 0),
    clientEventLoopP99StormMs: eventLoop('p99Ms'),
    clientEventLoopMaxStormMs: eventLoop('maxMs'),
    redisCommandsPerReconnect: reconnects > 0 ? round(perReconnect.sum, 1) : null,
    redisCommandsPerReconnectByCommand: perReconnect.byCommand,
    seconds: (Date.now() - started) / 1000,
  };
  log(
    [
      `  bystanders (${report.bystanders}): p50 ${report.bystanderP50WarmMs} ms / p99 ${report.bystanderP99WarmMs} ms before, p50 ${report.bystanderP50StormMs} ms / p99 ${report.bystanderP99StormMs} ms during the storm`,
      `  probe (${report.probeMembers} members on the survivor, own process${report.probeAhead ? `, nice ${PROBE_NICE}` : ''}): p50 ${report.probeP50WarmMs} ms / p99 ${report.probeP99WarmMs} ms before, p50 ${report.probeP50StormMs} ms / p99 ${report.probeP99StormMs} ms during the storm (${report.probeMessagesStorm} deliveries; its event loop's max ${report.probeEventLoopMaxStormMs} ms)`,
      `  event-loop delay during the storm: survivor's max ${report.survivorEventLoopMaxStormMs} ms; load clients' p99 ${report.clientEventLoopP99StormMs} ms, max ${report.clientEventLoopMaxStormMs} ms`,
      `  messages: ${report.acknowledged} acknowledged, ${report.lost} lost, ${report.shownTwice} shown twice (${report.unacknowledged} in flight at the kill never acknowledged, ${report.unacknowledgedButStored} of them stored all the same)`,
      `  per reconnect: ${report.credentialCallsPerReconnect} credential calls, ${report.ticketCallsPerReconnect} ticket calls, ${report.redisCommandsPerReconnect} Redis commands ${JSON.stringify(report.redisCommandsPerReconnectByCommand)}`,
    ].join('\n'),
  );
  return report;
}

export type StormReport = Awaited<ReturnType<typeof stormScenario>>;
