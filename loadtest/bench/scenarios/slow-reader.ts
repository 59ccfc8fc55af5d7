/**
 * `npm run bench -- --only slowReader`: the harness's slow-reader attack (`slowReaderAttack`:
 * paused readers in a busy room of one replica, cut with 1013 and reported gone), measured: the
 * replica's RSS without and during the attack, the members' p50/p99 in both phases, the cuts and
 * the time from an attacker's open (and its cut) to the others seeing it gone. Bounded: idle
 * phase + attack + a short cool-down.
 */
import { quantileMs as p, round, type SlowReaderSettings, slowReaderAttack } from '@taco/harness';
import { startServer } from '../servers';
import { withServer } from '../session';
import { log, median, MIB, type Scenario, stamp } from './common';

const ROOM = 'slow-reader-room';

export const slowReader: Scenario<keyof SlowReaderSettings, SlowReaderReport> = {
  file: 'slow-reader',
  ints: {
    attackSeconds: ['seconds', 60, 15, 5, 600],
    idleSeconds: ['idle-seconds', 15, 3, 3, 600],
    attackers: ['attackers', 10, 3, 1, 200],
    members: ['members', 10, 4, 2, 200],
    rate: ['rate', 250, 250, 1, 5000],
    bodyBytes: ['body', 4000, 4000, 100, 4000],
  },
  measure: slowReaderScenario,
};

export type SlowReaderReport = Awaited<ReturnType<typeof slowReaderScenario>>;

/** Runs the attack with the bench's measurements and returns its figures. */
export async function slowReaderScenario(settings: SlowReaderSettings) {
  const { attackSeconds, idleSeconds, attackers, rate } = settings;
  const started = Date.now();
  log(`== Slow readers: ${attackers} paused attackers, ${settings.members} members, ${rate} msg/s`);
  return withServer(
    () => startServer('taco', 1),
    async ({ cluster }) => {
      const replica = cluster?.replicas[0];
      if (!replica?.pid) throw new Error('the replica did not start');
      log(`  without attackers: ${idleSeconds} s, then the attack: ${attackSeconds} s`);
      const figures = await slowReaderAttack(replica, ROOM, settings);
      const { openToGoneMs, cutToGoneMs } = figures;
      const { idle, attack, after } = figures.phases;
      const idleRss = median(idle.rss);
      const attackRss = Math.max(...attack.rss);
      const spread = (values: number[]) =>
        values.length > 0 ? { median: median(values), max: Math.max(...values) } : null;
      const report = {
        ...stamp('slowReader'),
        settings,
        rssIdleMiB: round(idleRss / MIB),
        rssAttackMaxMiB: round(attackRss / MIB),
        rssAttackMedianMiB: round(median(attack.rss) / MIB),
        rssGrowthMiB: round((attackRss - idleRss) / MIB),
        rssAfterMiB: round(median(after.rss) / MIB),
        p50IdleMs: p(idle.histogram, 0.5),
        p99IdleMs: p(idle.histogram, 0.99),
        p50AttackMs: p(attack.histogram, 0.5),
        p99AttackMs: p(attack.histogram, 0.99),
        attackerSockets: figures.attackerSockets,
        attackerConnectFailures: figures.attackerConnectFailures,
        cuts1013: figures.cuts1013,
        reportedGone: openToGoneMs.length,
        openToGoneMedianMs: spread(openToGoneMs)?.median ?? null,
        openToGoneMaxMs: spread(openToGoneMs)?.max ?? null,
        cutToGoneMedianMs: spread(cutToGoneMs)?.median ?? null,
        cutToGoneMaxMs: spread(cutToGoneMs)?.max ?? null,
        sent: figures.sent,
        received: figures.received,
        seconds: (Date.now() - started) / 1000,
      };
      log(
        [
          `  RSS: ${report.rssIdleMiB} MiB without attackers, ${report.rssAttackMaxMiB} MiB at most during the attack (+${report.rssGrowthMiB} MiB), ${report.rssAfterMiB} MiB after`,
          `  members' latency: p50 ${report.p50IdleMs} ms / p99 ${report.p99IdleMs} ms without, p50 ${report.p50AttackMs} ms / p99 ${report.p99AttackMs} ms during`,
          `  attackers: ${report.attackerSockets} paused sockets, ${report.cuts1013} cut with 1013, ${report.reportedGone} reported gone (open → gone: median ${report.openToGoneMedianMs} ms, max ${report.openToGoneMaxMs} ms; cut → gone: median ${report.cutToGoneMedianMs} ms, max ${report.cutToGoneMaxMs} ms)`,
        ].join('\n'),
      );
      return report;
    },
  );
}
