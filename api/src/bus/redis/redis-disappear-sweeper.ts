import { LuaScript } from './lua-script';
import { type RedisConnections } from './redis-connections';
import { roomKeys, SHARED_KEYS } from './redis-keys';
import { DISAPPEAR_SETTLE_SCRIPT, DISAPPEAR_SWEEP_SCRIPT } from './scripts';

const sweep = new LuaScript(DISAPPEAR_SWEEP_SCRIPT);
const settle = new LuaScript(DISAPPEAR_SETTLE_SCRIPT);
/** The rooms due, by Redis's clock, with the scores read (KEYS: the registry; ARGV: how many). */
const due = new LuaScript(`
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, ARGV[1])
`);

/** How often a replica sweeps; messages are gone from Redis within this of expiring (§6.13). */
export const DISAPPEAR_SWEEP_MS = 1000;
/** Rooms swept per pass at most; the rest wait for the next pass. */
const ROOMS_PER_PASS = 200;

/**
 * Deletes expired messages of rooms whose messages disappear (protocol/README.md §6.13), on every
 * replica: each pass takes the rooms due from the registry (`taco:disappearing`), deletes their
 * expired messages on each room's own slot, and notes when each is due again. Replicas may sweep
 * one room at once: a sweep only deletes what has expired.
 */
export class RedisDisappearSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisConnections,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.pass()
        .catch(this.onError)
        .finally(() => (this.running = undefined));
    }, DISAPPEAR_SWEEP_MS).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Registers a room whose messages now disappear, due at once (a score no sweep has read). */
  async register(room: string): Promise<void> {
    await this.redis.command.zadd(SHARED_KEYS.disappearing, -Date.now() - Math.random(), room);
  }

  /** One pass: every room due, swept; resolves when done. */
  async pass(): Promise<void> {
    const found = (await due.run(
      this.redis.coalesced(),
      [SHARED_KEYS.disappearing],
      [ROOMS_PER_PASS],
    )) as string[];
    const work: Promise<unknown>[] = [];
    for (let i = 0; i + 1 < found.length; i += 2) {
      work.push(this.sweepRoom(found[i] ?? '', found[i + 1] ?? ''));
    }
    await Promise.all(work);
  }

  private async sweepRoom(room: string, score: string): Promise<void> {
    const keys = roomKeys(room);
    const next = (await sweep.run(
      this.redis.coalesced(),
      [keys.seq, keys.log, keys.epoch, keys.cleared, keys.settings],
      [],
    )) as number;
    await settle.run(
      this.redis.coalesced(),
      [SHARED_KEYS.disappearing],
      [room, score, next < 0 ? '' : next],
    );
  }
}
