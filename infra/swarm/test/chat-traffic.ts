/**
 * Chat traffic through nginx while something happens to the stack, and what the members saw.
 * The members are the harness's `ChatMember`s (they reconnect by `decideReconnect` and resume
 * from their last `(epoch, seq)` like the web client); readiness is polled through nginx
 * meanwhile.
 */
import { ApiPath } from '@taco/protocol';
import { httpStatus, members as join, settle, sleep, tally } from '@taco/harness';

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

export interface TrafficFigures {
  members: number;
  rooms: number;
  /** Messages put on an open socket. */
  sent: number;
  /** Of those, echoed back to their sender with a seq. */
  acknowledged: number;
  /**
   * Sent but never echoed: put on a socket as its replica closed it. Nothing is promised for
   * these (the web client keeps such a message pending until an echo or a history page settles
   * it); `unacknowledgedStored` of them are in history.
   */
  unacknowledged: number;
  unacknowledgedStored: number;
  /** Acknowledged messages some member of the room does not hold, or history lacks. */
  lost: number;
  /**
   * Acknowledged messages a member would show twice (the same `(epoch, seq)` with another body),
   * or that history holds twice (one body under two seqs).
   */
  duplicates: number;
  /**
   * Frames carrying a `(epoch, seq)` the member already held: a live message that a resume's
   * history page holds too. protocol/README.md §6.3 allows this overlap, and the client's dedupe
   * rule (the feed is keyed by `(epoch, seq)`) drops it.
   */
  overlappingFrames: number;
  reconnects: number;
  /** Members that lost their socket at least once and came back. */
  moved: number;
  /** How many times a member lost its socket and came back, all members together. */
  moves: number;
  /** Per member, its longest time without a working (open and caught-up) socket. */
  longestGapMs: Record<string, number>;
  longestGapMaxMs: number;
  readiness: { polls: number; ok: number; percent: number; notOk: string[] };
  /** Which acknowledged seqs a member lacks, per room and member (empty when none). */
  missing: string[];
}

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
): Promise<TrafficFigures> {
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
    sent,
    acknowledged: sum((seen) => seen.acked),
    unacknowledged: sum((seen) => seen.unacknowledged),
    unacknowledgedStored: sum((seen) => seen.unacknowledgedStored),
    lost: sum((seen) => seen.lost),
    duplicates: sum((seen) => seen.storedTwice + seen.conflicts),
    overlappingFrames: sum((seen) => seen.repeatedFrames),
    reconnects: sum((seen) => seen.reconnects),
    moved: members.filter((member) => member.stats.reconnectMs.length > 0).length,
    moves: members.reduce((total, member) => total + member.stats.reconnectMs.length, 0),
    longestGapMs,
    longestGapMaxMs: Math.max(0, ...Object.values(longestGapMs)),
    readiness: ready,
    missing: tallies.flatMap((seen) => seen.missing),
  };
}
