/**
 * `npm run bench -- --only slowReader`: a slow-reader attack on one replica. Members of a busy room
 * read normally while attackers join the same room and stop reading (their TCP sockets paused, so
 * they answer nothing, not even a close frame). The replica must cut each attacker (1013 past
 * 1 MiB waiting, dropped when the close handshake is overdue) and keep its memory and everyone
 * else's latency in bounds. An attacker seen gone (presence `connecting:false`) comes back at
 * once with a new paused socket, so the attack holds for its whole duration.
 *
 * Reports the replica's RSS without and during the attack, the members' p50/p99 in both phases,
 * the cuts (taco_closes_total{code="1013"}) and the time from an attacker's open to the others
 * seeing it gone. Bounded: idle phase + attack + a short cool-down.
 *
 *   npm run bench -- --only slowReader [--seconds 60] [--idle-seconds 15] [--attackers 10]
 *                    [--members 10] [--rate 250] [--body 4000] [--out file.json]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ApiPath, CloseCode, FrameType } from '@taco/protocol';
import WebSocket from 'ws';
import { startCluster } from '@taco/harness';
import { emptyHistogram, quantile, record } from '../histogram';
import { machine } from '../report';
import { nowMs, probeBody, readProbe } from '../probe';
import { rssBytes } from '../proc-stats';
import {
  credentials,
  intOption,
  log,
  median,
  metricValue,
  MIB,
  round,
  SCENARIO_ENV,
  writeReport,
} from './common';

const ROOM = 'slow-reader-room';
const SAMPLE_MS = 250;
const COOL_DOWN_MS = 8000;
const CUT_POLL_MS = 200;
const CONNECT_TIMEOUT_MS = 30_000;

interface Phase {
  rss: number[];
  histogram: number[];
}

interface Frame {
  type?: unknown;
  body?: unknown;
  sender?: unknown;
  connecting?: unknown;
}

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      perMessageDeflate: false,
      handshakeTimeout: CONNECT_TIMEOUT_MS,
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

export async function runSlowReader(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      seconds: { type: 'string' },
      'idle-seconds': { type: 'string' },
      attackers: { type: 'string' },
      members: { type: 'string' },
      rate: { type: 'string' },
      body: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const report = await slowReaderScenario({
    attackSeconds: intOption('seconds', values.seconds, 60, 5, 600),
    idleSeconds: intOption('idle-seconds', values['idle-seconds'], 15, 3, 600),
    attackers: intOption('attackers', values.attackers, 10, 1, 200),
    members: intOption('members', values.members, 10, 2, 200),
    rate: intOption('rate', values.rate, 250, 1, 5000),
    bodyBytes: intOption('body', values.body, 4000, 100, 4000),
  });
  log(`JSON: ${writeReport('slow-reader', values.out, report)}`);
}

export interface SlowReaderSettings {
  attackSeconds: number;
  idleSeconds: number;
  attackers: number;
  members: number;
  /** Messages per second into the room, in all. */
  rate: number;
  bodyBytes: number;
}

export type SlowReaderReport = Awaited<ReturnType<typeof slowReaderScenario>>;

/** Runs the attack (see the file's comment) and returns its figures. */
export async function slowReaderScenario(settings: SlowReaderSettings) {
  const { attackSeconds, idleSeconds, attackers, rate, bodyBytes } = settings;
  const memberCount = settings.members;
  const started = Date.now();

  log(`== Slow readers: ${attackers} paused attackers, ${memberCount} members, ${rate} msg/s`);
  const cluster = await startCluster({ replicas: 1, env: SCENARIO_ENV, output: 'quiet' });
  const sockets: WebSocket[] = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    const replica = cluster.replicas[0];
    if (!replica?.pid) throw new Error('the replica did not start');
    const pid = replica.pid;
    const wsBase = replica.url.replace(/^http/, 'ws');
    const tokens = new Map<string, string>();
    const token = async (name: string) => {
      const known = tokens.get(name);
      if (known) return known;
      const fresh = await credentials(replica.url, ROOM, name);
      tokens.set(name, fresh);
      return fresh;
    };

    let phase: Phase = { rss: [], histogram: emptyHistogram() };
    const idle = phase;
    let received = 0;
    const goneAt = new Map<string, number>();
    const members: WebSocket[] = [];
    for (let i = 0; i < memberCount; i++) {
      const ws = await open(`${wsBase}${ApiPath.roomSocket(ROOM, await token(`member-${i}`))}`);
      ws.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString('utf8')) as Frame;
        if (frame.type === FrameType.Message) {
          const probe = readProbe(frame.body);
          if (probe) {
            received++;
            record(phase.histogram, nowMs() - probe.t);
          }
        } else if (i === 0 && frame.type === FrameType.Presence && frame.connecting === false) {
          if (typeof frame.sender === 'string') goneAt.set(frame.sender, Date.now());
        }
      });
      members.push(ws);
      sockets.push(ws);
    }

    // Members take turns sending, `rate` messages a second in all, on a 10 ms tick.
    let sent = 0;
    const sendStarted = nowMs();
    timer = setInterval(() => {
      const due = Math.floor(((nowMs() - sendStarted) * rate) / 1000) - sent;
      for (let k = 0; k < due; k++) {
        const sender = members[sent % members.length];
        sent++;
        sender?.send(
          JSON.stringify({ type: FrameType.Message, body: probeBody(0, sent, bodyBytes) }),
        );
      }
    }, 10);
    const sampleFor = async (ms: number, stop: () => boolean = () => false) => {
      const until = Date.now() + ms;
      while (Date.now() < until && !stop()) {
        phase.rss.push(rssBytes(pid));
        await sleep(SAMPLE_MS);
      }
    };

    log(`  without attackers: ${idleSeconds} s`);
    await sampleFor(idleSeconds * 1000);

    log(`  attack: ${attackSeconds} s`);
    const attack: Phase = { rss: [], histogram: emptyHistogram() };
    phase = attack;
    const cutsBefore = await metricValue(replica.url, 'taco_closes_total', {
      code: String(CloseCode.TryAgainLater),
    });
    const attackEnds = Date.now() + attackSeconds * 1000;
    const openToGoneMs: number[] = [];
    const goneTimes: number[] = [];
    // When each cut happened, to within a poll: the 1013 counter read every CUT_POLL_MS.
    const cutTimes: number[] = [];
    const watchCuts = async () => {
      let seen = cutsBefore;
      while (Date.now() < attackEnds + COOL_DOWN_MS / 2) {
        const now = await metricValue(replica.url, 'taco_closes_total', {
          code: String(CloseCode.TryAgainLater),
        });
        for (; seen < now; seen++) cutTimes.push(Date.now());
        await sleep(CUT_POLL_MS);
      }
    };
    let opened = 0;
    let failures = 0;
    // One slot per attacker: open a socket, stop reading at once, and when the room hears it
    // is gone, forget the socket and open the next one.
    const slot = async (index: number) => {
      const name = `attacker-${index}`;
      while (Date.now() < attackEnds) {
        let ws: WebSocket;
        try {
          ws = await open(`${wsBase}${ApiPath.roomSocket(ROOM, await token(name))}`);
        } catch {
          failures++;
          await sleep(500);
          continue;
        }
        (ws as unknown as { _socket: { pause(): void } })._socket.pause();
        const openedAt = Date.now();
        opened++;
        goneAt.delete(name);
        while (Date.now() < attackEnds && !goneAt.has(name)) await sleep(100);
        const gone = goneAt.get(name);
        ws.terminate();
        if (gone !== undefined) {
          openToGoneMs.push(gone - openedAt);
          goneTimes.push(gone);
        }
      }
    };
    const watching = watchCuts();
    await Promise.all([
      sampleFor(attackSeconds * 1000),
      ...Array.from({ length: attackers }, (_, index) => slot(index)),
    ]);
    const cuts =
      (await metricValue(replica.url, 'taco_closes_total', {
        code: String(CloseCode.TryAgainLater),
      })) - cutsBefore;
    clearInterval(timer);
    timer = undefined;

    const after: Phase = { rss: [], histogram: emptyHistogram() };
    phase = after;
    await sampleFor(COOL_DOWN_MS);
    await watching;
    // Cuts and departures pair up in order (every cut has the same grace before its departure).
    goneTimes.sort((a, b) => a - b);
    const cutToGoneMs = goneTimes
      .slice(0, cutTimes.length)
      .map((gone, index) => gone - (cutTimes[index] ?? gone));

    const idleRss = median(idle.rss);
    const attackRss = Math.max(...attack.rss);
    const p = (histogram: number[], q: number) => round(quantile(histogram, q), 1);
    const report = {
      scenario: 'slowReader',
      date: new Date().toISOString(),
      machine: machine(),
      settings: { attackSeconds, idleSeconds, attackers, members: memberCount, rate, bodyBytes },
      rssIdleMiB: round(idleRss / MIB),
      rssAttackMaxMiB: round(attackRss / MIB),
      rssAttackMedianMiB: round(median(attack.rss) / MIB),
      rssGrowthMiB: round((attackRss - idleRss) / MIB),
      rssAfterMiB: round(median(after.rss) / MIB),
      p50IdleMs: p(idle.histogram, 0.5),
      p99IdleMs: p(idle.histogram, 0.99),
      p50AttackMs: p(attack.histogram, 0.5),
      p99AttackMs: p(attack.histogram, 0.99),
      attackerSockets: opened,
      attackerConnectFailures: failures,
      cuts1013: cuts,
      reportedGone: openToGoneMs.length,
      openToGoneMedianMs: openToGoneMs.length > 0 ? median(openToGoneMs) : null,
      openToGoneMaxMs: openToGoneMs.length > 0 ? Math.max(...openToGoneMs) : null,
      cutToGoneMedianMs: cutToGoneMs.length > 0 ? median(cutToGoneMs) : null,
      cutToGoneMaxMs: cutToGoneMs.length > 0 ? Math.max(...cutToGoneMs) : null,
      sent,
      received,
      seconds: (Date.now() - started) / 1000,
    };
    log(
      [
        `  RSS: ${report.rssIdleMiB} MiB without attackers, ${report.rssAttackMaxMiB} MiB at most during the attack (+${report.rssGrowthMiB} MiB), ${report.rssAfterMiB} MiB after`,
        `  members' latency: p50 ${report.p50IdleMs} ms / p99 ${report.p99IdleMs} ms without, p50 ${report.p50AttackMs} ms / p99 ${report.p99AttackMs} ms during`,
        `  attackers: ${opened} paused sockets, ${cuts} cut with 1013, ${openToGoneMs.length} reported gone (open → gone: median ${report.openToGoneMedianMs} ms, max ${report.openToGoneMaxMs} ms; cut → gone: median ${report.cutToGoneMedianMs} ms, max ${report.cutToGoneMaxMs} ms)`,
      ].join('\n'),
    );
    return report;
  } finally {
    if (timer) clearInterval(timer);
    for (const ws of sockets) ws.terminate();
    await cluster.stop();
  }
}
