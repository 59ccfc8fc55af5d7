/**
 * Chat traffic through nginx while something happens to the stack, and what the members saw.
 * The members are the harness's `ChatMember`s (they reconnect by `decideReconnect` and resume
 * from their last `(epoch, seq)` like the web client); readiness is polled through nginx
 * meanwhile.
 */
import { ApiPath } from '@taco/protocol';
import { httpStatus, members as join, settle, sleep, tally } from '@taco/harness';
import type { SwarmStack } from './swarm-stack';

export interface TrafficOptions {
  /** Room names are `<prefix>-<n>`. */
  prefix: string;
  rooms: number;
  membersPerRoom: number;
  /** Every member says something this often. */
  everyMs: number;
  /** `/api/health/ready` through nginx this often. */
  pollEveryMs: number;
}

/** What the members saw of a traffic run (`chatThrough`). */
export type TrafficFigures = Awaited<ReturnType<typeof chatThrough>>;

/** A traffic run's figures, and how many requests nginx's access log shows meanwhile. */
export interface Observed extends TrafficFigures {
  /** `retried`: requests nginx sent to more than one replica (a failed try, then another). */
  nginx: { requests: number; retried: number };
}

/** No member may be without a working socket for longer than this (issue 27). */
export const MAX_GAP_MS = 10_000;
/** Share of readiness polls through nginx that must answer 200 during a rolling update. */
export const MIN_READY_PERCENT = 95;
export const TRAFFIC: Omit<TrafficOptions, 'prefix'> = {
  rooms: 3,
  membersPerRoom: 4,
  everyMs: 500,
  pollEveryMs: 200,
};

/** Polls readiness through nginx until `stop()`: how many polls, how many answered 200. */
function pollReadiness(baseUrl: string, everyMs: number) {
  let running = true;
  const statuses: { at: number; status: number }[] = [];
  const startedAt = Date.now();
  const done = (async () => {
    for (let next = Date.now(); running;) {
      const status = await httpStatus(`${baseUrl}${ApiPath.healthReady}`);
      statuses.push({ at: Date.now() - startedAt, status });
      next += everyMs;
      await sleep(Math.max(0, next - Date.now()));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      const ok = statuses.filter((s) => s.status === 200).length;
      return {
        polls: statuses.length,
        ok,
        percent: statuses.length === 0 ? 0 : Math.round((1000 * ok) / statuses.length) / 10,
        notOk: statuses
          .filter((s) => s.status !== 200)
          .map((s) => `${(s.at / 1000).toFixed(1)}s:${s.status}`),
      };
    },
  };
}

/**
 * Members join `rooms` rooms through nginx and keep talking while `during` runs; then they
 * settle (every member open and caught up), and each room's acknowledged messages are checked
 * against every member's feed and the room's history.
 */
export async function chatThrough(
  baseUrl: string,
  options: TrafficOptions,
  during: () => Promise<void>,
) {
  const rooms = Array.from({ length: options.rooms }, (_, i) => `${options.prefix}-${i + 1}`);
  const members = (
    await Promise.all(rooms.map((room) => join(baseUrl, room, options.membersPerRoom)))
  ).flat();
  const readiness = pollReadiness(baseUrl, options.pollEveryMs);
  /** Messages put on an open socket. */
  let sent = 0;
  let talking = true;
  const talk = (async () => {
    for (let round = 0; talking; round++) {
      for (const member of members) if (member.say(`${round} from ${member.name}`)) sent++;
      await sleep(options.everyMs);
    }
  })();
  try {
    await during();
  } finally {
    talking = false;
    await talk;
  }
  const ready = await readiness.stop();
  // Every member back on an open socket and caught up, and the last echoes in.
  await settle(members, 30_000);
  await sleep(1000);

  const tallies = await Promise.all(
    rooms.map((room) =>
      tally(
        baseUrl,
        room,
        members.filter((member) => member.room === room),
      ),
    ),
  );
  const sum = (count: (seen: (typeof tallies)[number]) => number) =>
    tallies.reduce((total, seen) => total + count(seen), 0);
  const longestGapMs = Object.fromEntries(
    members.map((member) => [
      `${member.room}/${member.name}`,
      Math.max(0, ...member.stats.reconnectMs),
    ]),
  );
  for (const member of members) member.close();
  return {
    members: members.length,
    rooms: rooms.length,
    /** Messages put on an open socket. */
    sent,
    /** Of those, echoed back to their sender with a seq. */
    acknowledged: sum((seen) => seen.acked),
    /**
     * Sent but never echoed: put on a socket as its replica closed it. Nothing is promised for
     * these (the web client keeps such a message pending until an echo or a history page settles
     * it); `unacknowledgedStored` of them are in history.
     */
    unacknowledged: sum((seen) => seen.unacknowledged),
    unacknowledgedStored: sum((seen) => seen.unacknowledgedStored),
    /** Acknowledged messages some member of the room does not hold, or history lacks. */
    lost: sum((seen) => seen.lost),
    /**
     * Acknowledged messages a member would show twice (the same `(epoch, seq)` with another
     * body), or that history holds twice (one body under two seqs).
     */
    duplicates: sum((seen) => seen.storedTwice + seen.conflicts),
    /**
     * Frames carrying a `(epoch, seq)` the member already held: a live message that a resume's
     * history page holds too. protocol/README.md §6.3 allows this overlap, and the client's
     * dedupe rule (the feed is keyed by `(epoch, seq)`) drops it.
     */
    overlappingFrames: sum((seen) => seen.repeatedFrames),
    reconnects: sum((seen) => seen.reconnects),
    /** Members that lost their socket at least once and came back. */
    moved: members.filter((member) => member.stats.reconnectMs.length > 0).length,
    /** How many times a member lost its socket and came back, all members together. */
    moves: members.reduce((total, member) => total + member.stats.reconnectMs.length, 0),
    /** Per member, its longest time without a working (open and caught-up) socket. */
    longestGapMs,
    longestGapMaxMs: Math.max(0, ...Object.values(longestGapMs)),
    readiness: ready,
    /** Which acknowledged seqs a member lacks, per room and member (empty when none). */
    missing: tallies.flatMap((seen) => seen.missing),
  };
}

/** `chatThrough` nginx, and what nginx's access log shows for the same time. */
export async function observeTraffic(
  swarm: SwarmStack,
  baseUrl: string,
  options: TrafficOptions,
  during: () => Promise<void>,
): Promise<Observed> {
  const since = new Date(Date.now() - 1000).toISOString();
  const traffic = await chatThrough(baseUrl, options, during);
  const lines = (await swarm.logs('nginx', since))
    .split('\n')
    .filter((line) => line.includes(' upstream_status='));
  // `upstream_status=504, 502 : 200`: a comma or colon after a status means another try.
  const retried = lines.filter((line) => /upstream_status=\S+(,| :)/.test(line));
  return { ...traffic, nginx: { requests: lines.length, retried: retried.length } };
}

/** The figures worth quoting, printed on one line (with each member's longest gap). */
export function summary(name: string, traffic: Observed): Record<string, unknown> {
  const { longestGapMs, readiness, missing, nginx, ...counts } = traffic;
  const line = {
    ...counts,
    readinessPercent: readiness.percent,
    readinessPolls: readiness.polls,
    nginxRequests: nginx.requests,
    nginxRetried: nginx.retried,
  };
  const notOk =
    readiness.notOk.length > 0 ? `  readiness not 200 at: ${readiness.notOk.join(' ')}\n` : '';
  process.stdout.write(
    `swarm ${name}: ${JSON.stringify(line)}\n  longest gap per member (ms): ${JSON.stringify(longestGapMs)}\n${notOk}`,
  );
  return { ...line, longestGapMs, readinessNotOk: readiness.notOk, missing };
}

/** What every scenario under traffic must show: nothing lost or doubled, nobody away for long. */
export function expectNothingLost(traffic: TrafficFigures): void {
  expect(traffic.acknowledged).toBeGreaterThan(0);
  expect(traffic.missing).toEqual([]);
  expect(traffic.lost).toBe(0);
  expect(traffic.duplicates).toBe(0);
  expect(traffic.longestGapMaxMs).toBeLessThan(MAX_GAP_MS);
}
