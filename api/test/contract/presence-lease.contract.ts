import { type Cluster, type Redis } from 'ioredis';
import { nameClaim } from '../../src/bus/name-claim';
import { type ConnectionLimiter } from '../../src/bus/connection-limiter.port';
import { type PresenceStore } from '../../src/bus/presence.port';
import { SHARED_KEYS } from '../../src/bus/redis/redis-keys';

/**
 * How long a lease runs in these tests. Each store renews every third of it, so a renewal held up
 * for two thirds of a lease (a loaded CI machine running other suites) lapses it: 300 ms did once.
 */
export const LEASE_MS = 1000;
/** A test renews for up to six leases: Jest's 5 s default is too short. */
const TEST_MS = LEASE_MS * 12;
/** The per-address socket cap of the limiters under test. */
export const SOCKET_CAP = 2;

export interface PresenceLeasesUnderTest {
  /** Two replicas' presence, each with its own lease of `LEASE_MS`. */
  one: PresenceStore;
  two: PresenceStore;
  /** Each replica's open sockets per address (cap `SOCKET_CAP`), counted under the same lease. */
  oneSockets: ConnectionLimiter;
  twoSockets: ConnectionLimiter;
  /** A client of the same Redis, for counting what it was sent. */
  plain: Redis | Cluster;
  dispose(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const as = (name: string) => nameClaim(name, `credential of ${name}`);

/** Calls Redis has served of `command` (on every master of a cluster). */
async function calls(plain: Redis | Cluster, command: string): Promise<number> {
  const nodes = 'nodes' in plain ? plain.nodes('master') : [plain];
  const stats = await Promise.all(nodes.map((node) => node.info('commandstats')));
  return stats.reduce((sum, text) => {
    const found = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(text);
    return sum + Number(found?.[1] ?? 0);
  }, 0);
}

/**
 * Shared presence held by leases (protocol/README.md §8.3): a replica renews one lease, whatever
 * the number of its members; the members of a replica that stops renewing are reaped by another.
 */
export function describePresenceLeaseContract(
  driver: string,
  create: () => Promise<PresenceLeasesUnderTest>,
): void {
  describe(`Presence leases: ${driver}`, () => {
    let subject: PresenceLeasesUnderTest;
    let one: PresenceStore;
    let two: PresenceStore;
    let counter = 0;
    let room: string;

    beforeEach(async () => {
      subject = await create();
      ({ one, two } = subject);
      room = `lease-${Date.now()}-${++counter}`;
    });
    afterEach(() => subject.dispose());

    /** Renews `store` every `LEASE_MS / 3` for `ms`; returns the names it found gone in `room`. */
    async function tendFor(store: PresenceStore, ms: number): Promise<string[]> {
      const gone: string[] = [];
      for (const deadline = Date.now() + ms; Date.now() < deadline;) {
        const tended = await store.tend();
        for (const left of tended.gone) if (left.room === room) gone.push(...left.names);
        await sleep(LEASE_MS / 3);
      }
      return gone;
    }

    it(
      'reports the members of a replica that stopped renewing as gone, once',
      async () => {
        await one.join(room, as('Ghost'), 'one:1');
        await two.join(room, as('Bob'), 'two:1');
        // Replica one never renews: its lease lapses, and two reaps it.
        expect(await tendFor(two, LEASE_MS * 3)).toEqual(['Ghost']);
        expect(await two.names(room)).toEqual(['Bob']);
        expect((await two.tend()).gone).toEqual([]);
      },
      TEST_MS,
    );

    it(
      'keeps the members of a replica that renews, however long',
      async () => {
        await one.join(room, as('Ann'), 'one:1');
        const [goneForOne, goneForTwo] = await Promise.all([
          tendFor(one, LEASE_MS * 4),
          tendFor(two, LEASE_MS * 4),
        ]);
        expect([...goneForOne, ...goneForTwo]).toEqual([]);
        expect(await two.names(room)).toEqual(['Ann']);
      },
      TEST_MS,
    );

    it(
      'renews with one script, however many members, rooms and addresses the replica has',
      async () => {
        for (let i = 0; i < 40; i++) await one.join(`${room}-${i % 10}`, as(`N${i}`), `one:${i}`);
        for (let i = 0; i < 20; i++) await subject.oneSockets.acquire(`192.0.2.${i}`);
        // No lapsed lease of an earlier test left to reap: this replica's renewals alone are counted.
        await subject.plain.del(SHARED_KEYS.presenceLeases);
        await one.tend();
        const before = await calls(subject.plain, 'evalsha');
        for (let i = 0; i < 5; i++) await one.tend();
        expect((await calls(subject.plain, 'evalsha')) - before).toBe(5);
      },
      TEST_MS,
    );

    it(
      'takes a new lease when its own lapsed, and puts members back that were reaped',
      async () => {
        const ann = { claim: as('Ann'), connectionId: 'one:1' };
        await one.join(room, ann.claim, ann.connectionId);
        expect(await tendFor(two, LEASE_MS * 3)).toEqual(['Ann']);
        // Replica one wakes up: its lease lapsed, so its members go back under a new one.
        expect((await one.tend()).lapsed).toBe(true);
        expect(await one.keep(room, [ann])).toEqual({ back: ['Ann'], taken: [], removed: [] });
        const [, goneForTwo] = await Promise.all([
          tendFor(one, LEASE_MS * 3),
          tendFor(two, LEASE_MS * 3),
        ]);
        expect(goneForTwo).toEqual([]);
        expect(await two.names(room)).toEqual(['Ann']);
      },
      TEST_MS,
    );

    it(
      'keeps members it put back under a new lease when the old one is reaped after',
      async () => {
        const ann = { claim: as('Ann'), connectionId: 'one:1' };
        await one.join(room, ann.claim, ann.connectionId);
        await sleep(LEASE_MS * 1.5);
        expect((await one.tend()).lapsed).toBe(true);
        expect(await one.keep(room, [ann])).toEqual({ back: [], taken: [], removed: [] });
        // Two reaps the old lease: nothing of Ann is left under it.
        const [, goneForTwo] = await Promise.all([
          tendFor(one, LEASE_MS * 2),
          tendFor(two, LEASE_MS * 2),
        ]);
        expect(goneForTwo).toEqual([]);
        expect(await two.names(room)).toEqual(['Ann']);
      },
      TEST_MS,
    );

    it(
      'counts a replica’s sockets while it renews, and no longer once its lease is reaped',
      async () => {
        const ip = `198.51.100.${counter % 250}`;
        for (let i = 0; i < SOCKET_CAP; i++)
          expect(await subject.oneSockets.acquire(ip)).toBe(true);
        await Promise.all([tendFor(one, LEASE_MS * 3), tendFor(two, LEASE_MS * 3)]);
        expect(await subject.twoSockets.acquire(ip)).toBe(false);
        // Replica one stops renewing: two reaps its lease, and with it its count of the address.
        await tendFor(two, LEASE_MS * 3);
        expect(await subject.twoSockets.acquire(ip)).toBe(true);
        expect(await subject.twoSockets.acquire(ip)).toBe(true);
        expect(await subject.twoSockets.acquire(ip)).toBe(false);
      },
      TEST_MS,
    );
  });
}
