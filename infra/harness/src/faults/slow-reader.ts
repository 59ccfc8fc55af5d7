/**
 * The slow-reader fault: members of a busy room read normally on one replica while attackers
 * join the same room and stop reading (their TCP sockets paused, so they answer nothing, not even
 * a close frame). The replica must cut each attacker (1013 past 1 MiB waiting, dropped when the
 * close handshake is overdue) and keep delivering to everyone else. An attacker seen gone
 * (presence `connecting:false`) comes back at once with a new paused socket, so the attack holds
 * for its whole duration. Messages carry a latency probe; the members' latency and the replica's
 * memory are kept per phase (before, during and after the attack). `npm run chaos` runs it short;
 * the bench prints its summary: RSS without and during the attack, the members' p50/p99 in both
 * phases, the cuts, and the time from an attacker's open (and its cut) to the others seeing it gone.
 */
import { CloseCode, FrameType, type ServerFrame } from '@taco/protocol';
import WebSocket from 'ws';
import { credentials, socketUrl } from '../client/http';
import { RawClient } from '../client/raw-client';
import { type Cluster } from '../cluster';
import { type Service } from '../managed-process';
import { metricValue } from '../metrics';
import { emptyHistogram, probeBody, quantileMs, recordProbe, round } from '../probe';
import { rssBytes } from '../proc-stats';
import { sleep } from '../wait';
import { type ChaosOptions, percentile, verdict } from './verdict';

const SAMPLE_MS = 250;
const COOL_DOWN_MS = 8000;
const CUT_POLL_MS = 200;
const mib = (bytes: number) => round(bytes / 2 ** 20);

export interface SlowReaderSettings {
  attackSeconds: number;
  idleSeconds: number;
  attackers: number;
  members: number;
  /** Messages per second into the room, in all. */
  rate: number;
  bodyBytes: number;
}

const cutsOf = (replica: Service) =>
  metricValue(replica.url, 'taco_closes_total', { code: String(CloseCode.TryAgainLater) });

/** Runs the attack on `replica` in `room` (see the file's comment) and returns what happened. */
export async function slowReaderAttack(
  replica: Service,
  room: string,
  settings: SlowReaderSettings,
  log: (line: string) => void = () => undefined,
) {
  const { attackSeconds, idleSeconds, attackers, rate, bodyBytes } = settings;
  log(`  without attackers: ${idleSeconds} s, then the attack: ${attackSeconds} s`);
  const samples = () => ({ rss: [] as number[], histogram: emptyHistogram() });
  const phases = { idle: samples(), attack: samples(), after: samples() };
  let phase = phases.idle;
  const tokens = new Map<string, Promise<string>>();
  const open = async (name: string, onFrame: (frame: ServerFrame) => void) => {
    const token = tokens.get(name) ?? credentials(replica.url, room, name);
    tokens.set(name, token);
    const url = socketUrl(replica.url, room, { token: await token });
    const client = new RawClient(new WebSocket(url, { perMessageDeflate: false }), name, onFrame);
    await client.opened;
    return client;
  };
  let received = 0;
  const goneAt = new Map<string, number>();
  const members: RawClient[] = [];
  for (let i = 0; i < settings.members; i++) {
    const member = await open(`member-${i}`, (frame) => {
      if (frame.type === FrameType.Message && 'body' in frame) {
        received++;
        recordProbe(phase.histogram, frame.body);
      } else if (i === 0 && frame.type === FrameType.Presence && !frame.connecting) {
        goneAt.set(frame.sender, Date.now());
      }
    });
    members.push(member);
  }
  // Members take turns sending, `rate` messages a second in all, on a 10 ms tick.
  let sent = 0;
  const sendStarted = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - sendStarted) * rate) / 1000);
    for (; sent < due; sent++) {
      const body = probeBody(0, sent + 1, bodyBytes);
      members[sent % members.length]?.send({ type: FrameType.Message, body });
    }
  }, 10);
  const sampleFor = async (ms: number) => {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(SAMPLE_MS))
      phase.rss.push(rssBytes(replica.pid ?? 0));
  };
  try {
    await sampleFor(idleSeconds * 1000);
    phase = phases.attack;
    const cutsBefore = await cutsOf(replica);
    const attackEnds = Date.now() + attackSeconds * 1000;
    const openToGoneMs: number[] = [];
    const goneTimes: number[] = [];
    // When each cut happened, to within a poll: the 1013 counter read every CUT_POLL_MS.
    const cutTimes: number[] = [];
    const watchingCuts = (async () => {
      for (let seen = cutsBefore; Date.now() < attackEnds + COOL_DOWN_MS / 2;) {
        const now = await cutsOf(replica);
        for (; seen < now; seen++) cutTimes.push(Date.now());
        await sleep(CUT_POLL_MS);
      }
    })();
    let opened = 0;
    let failures = 0;
    // One slot per attacker: open a socket, stop reading at once, and when the room hears it
    // is gone, forget the socket and open the next one.
    const slot = async (index: number) => {
      const name = `attacker-${index}`;
      while (Date.now() < attackEnds) {
        const attacker = await open(name, () => undefined).catch(() => null);
        if (!attacker) {
          failures++;
          await sleep(500);
          continue;
        }
        (attacker.socket as unknown as { _socket: { pause(): void } })._socket.pause();
        const openedAt = Date.now();
        opened++;
        goneAt.delete(name);
        while (Date.now() < attackEnds && !goneAt.has(name)) await sleep(100);
        const gone = goneAt.get(name);
        attacker.socket.terminate();
        if (gone !== undefined) {
          openToGoneMs.push(gone - openedAt);
          goneTimes.push(gone);
        }
      }
    };
    await Promise.all([
      sampleFor(attackSeconds * 1000),
      ...Array.from({ length: attackers }, (_, index) => slot(index)),
    ]);
    const cuts1013 = (await cutsOf(replica)) - cutsBefore;
    clearInterval(timer);
    phase = phases.after;
    await sampleFor(COOL_DOWN_MS);
    await watchingCuts;
    // Cuts and departures pair up in order (every cut has the same grace before its departure).
    goneTimes.sort((a, b) => a - b);
    const cutToGoneMs = goneTimes
      .slice(0, cutTimes.length)
      .map((gone, index) => gone - (cutTimes[index] ?? gone));
    const median = (values: number[]) => percentile(values, 50) ?? 0;
    const idleRss = median(phases.idle.rss);
    const attackRss = Math.max(...phases.attack.rss);
    const latency = (q: number, { histogram }: typeof phase) => quantileMs(histogram, q);
    // What the bench reports (RSS in MiB, latency in ms).
    const summary = {
      rssIdleMiB: mib(idleRss),
      rssAttackMaxMiB: mib(attackRss),
      rssAttackMedianMiB: mib(median(phases.attack.rss)),
      rssGrowthMiB: mib(attackRss - idleRss),
      rssAfterMiB: mib(median(phases.after.rss)),
      p50IdleMs: latency(0.5, phases.idle),
      p99IdleMs: latency(0.99, phases.idle),
      p50AttackMs: latency(0.5, phases.attack),
      p99AttackMs: latency(0.99, phases.attack),
      attackerSockets: opened,
      attackerConnectFailures: failures,
      cuts1013,
      reportedGone: openToGoneMs.length,
      openToGoneMedianMs: percentile(openToGoneMs, 50),
      openToGoneMaxMs: percentile(openToGoneMs, 100),
      cutToGoneMedianMs: percentile(cutToGoneMs, 50),
      cutToGoneMaxMs: percentile(cutToGoneMs, 100),
      sent,
      received,
    };
    const r = summary;
    log(
      [
        `  RSS: ${r.rssIdleMiB} MiB without attackers, ${r.rssAttackMaxMiB} MiB at most during the attack (+${r.rssGrowthMiB} MiB), ${r.rssAfterMiB} MiB after`,
        `  members' latency: p50 ${r.p50IdleMs} ms / p99 ${r.p99IdleMs} ms without, p50 ${r.p50AttackMs} ms / p99 ${r.p99AttackMs} ms during`,
        `  attackers: ${r.attackerSockets} paused sockets, ${r.cuts1013} cut with 1013, ${r.reportedGone} reported gone (open → gone: median ${r.openToGoneMedianMs} ms, max ${r.openToGoneMaxMs} ms; cut → gone: median ${r.cutToGoneMedianMs} ms, max ${r.cutToGoneMaxMs} ms)`,
      ].join('\n'),
    );
    // `phases`: the replica's RSS every 250 ms and the members' latency histogram, before the
    // attack, during it, and in the cool-down after it; `cuts1013`: taco_closes_total{code="1013"}
    // during the attack; per attacker socket the room heard gone, from its open and from its cut.
    return { ...summary, openToGoneMs, cutToGoneMs, phases, summary };
  } finally {
    clearInterval(timer);
    for (const member of members) member.socket.terminate();
  }
}

/** `npm run chaos`'s slow consumer: the attack, short, on a replica of its own. */
export async function slowConsumerScenario(cluster: Cluster, options: ChaosOptions) {
  const replica = cluster.replicas[0];
  if (!replica) throw new Error('no replica');
  const before = rssBytes(replica.pid ?? 0);
  const members = 2;
  const room = `chaos-slow-${Date.now()}`;
  const figures = await slowReaderAttack(replica, room, {
    attackSeconds: options.short ? 6 : 15,
    idleSeconds: 1,
    attackers: options.short ? 1 : 3,
    members,
    rate: 250,
    bodyBytes: 4000,
  });
  const peak = Math.max(before, ...Object.values(figures.phases).flatMap((each) => each.rss));
  const lost = figures.sent * members - figures.received;
  const note = `${figures.attackerSockets} paused readers, ${figures.cuts1013} closed with 1013, ${lost} messages missing at the members; replica RSS ${mib(before)} MiB → peak ${mib(peak)} MiB`;
  // No chat member took part: every message figure is 0; a stopped replica counts as a crash.
  const failed = (figures.cuts1013 > 0 ? 0 : 1) + (lost === 0 ? 0 : 1);
  return verdict(cluster, 'slow consumer', room, [], [note], failed);
}
