import { type ChatBus, type RoomEvent } from '../../src/bus/chat-bus.port';
import { type NameClaim, nameClaim } from '../../src/bus/name-claim';
import { type PresenceJoin, type PresenceStore } from '../../src/bus/presence.port';
import { until } from '../support/until';

/** A join that was let in (fails the test if it was refused). */
async function admitted(join: Promise<PresenceJoin>) {
  const joined = await join;
  if (joined.taken) throw new Error('the join was refused: the name is taken');
  return joined;
}

/** `name` as held by `holder` (by default, one holder per name: its own credential). */
const as = (name: string, holder = `credential of ${name}`): NameClaim => nameClaim(name, holder);

export interface PresenceUnderTest {
  store: PresenceStore;
  /** The bus the store announces on (`join`/`leave` with an event). */
  bus: ChatBus;
  dispose(): Promise<void>;
}

/** The behaviour every `PresenceStore` driver must have. */
export function describePresenceContract(
  driver: string,
  create: () => Promise<PresenceUnderTest>,
): void {
  describe(`PresenceStore contract: ${driver}`, () => {
    let subject: PresenceUnderTest;
    let store: PresenceStore;
    let counter = 0;
    let room: string;

    beforeEach(async () => {
      subject = await create();
      store = subject.store;
      room = `presence-${Date.now()}-${++counter}`;
    });
    afterEach(() => subject.dispose());

    it('reports a first join with the roster, the newcomer included', async () => {
      expect(await store.join(room, as('Ann'), 'c1')).toEqual({
        taken: false,
        first: true,
        roster: ['Ann'],
      });
      const bob = await admitted(store.join(room, as('Bob'), 'c2'));
      expect(bob.first).toBe(true);
      expect([...bob.roster].sort()).toEqual(['Ann', 'Bob']);
    });

    it('counts a name once however many connections it has', async () => {
      await store.join(room, as('Ann'), 'c1');
      expect((await admitted(store.join(room, as('Ann'), 'c2'))).first).toBe(false);
      expect(await store.leave(room, as('Ann'), 'c1')).toEqual({ last: false });
      expect(await store.isTaken(room, 'Ann')).toBe(true);
      expect(await store.leave(room, as('Ann'), 'c2')).toEqual({ last: true });
      expect(await store.isTaken(room, 'Ann')).toBe(false);
    });

    it('names everyone connected now, each name once', async () => {
      expect(await store.names(room)).toEqual([]);
      await store.join(room, as('Ann'), 'c1');
      await store.join(room, as('Ann'), 'c2');
      await store.join(room, as('Bob'), 'c3');
      expect((await store.names(room)).sort()).toEqual(['Ann', 'Bob']);
      await store.leave(room, as('Bob'), 'c3');
      expect(await store.names(room)).toEqual(['Ann']);
    });

    it('ignores a leave it never saw', async () => {
      expect(await store.leave(room, as('Nobody'), 'c9')).toEqual({ last: false });
      await store.join(room, as('Ann'), 'c1');
      expect(await store.leave(room, as('Ann'), 'c-unknown')).toEqual({ last: false });
      expect(await store.isTaken(room, 'Ann')).toBe(true);
    });

    it('announces a name to the room on its first join and its last leave, only then', async () => {
      const { bus } = subject;
      const seen: string[] = [];
      bus.onDelivery((to, event) => {
        if (to === room) seen.push(event.payload.toString());
      });
      await bus.subscribe(room);
      const event = (text: string): RoomEvent => ({ payload: text });
      expect(await store.join(room, as('Ann'), 'c1', event('Ann came'))).toEqual({
        taken: false,
        first: true,
        roster: ['Ann'],
      });
      expect(
        (await admitted(store.join(room, as('Ann'), 'c2', event('Ann came again')))).first,
      ).toBe(false);
      expect((await admitted(store.join(room, as('Bob'), 'c3'))).first).toBe(true);
      expect(await store.leave(room, as('Ann'), 'c1', event('Ann left early'))).toEqual({
        last: false,
      });
      expect(await store.leave(room, as('Ann'), 'c2', event('Ann left'))).toEqual({ last: true });
      expect(await store.leave(room, as('Ann'), 'c2', event('Ann left twice'))).toEqual({
        last: false,
      });
      // Published after the others on the same path: once it is here, so is everything before it.
      await bus.publish(room, event('end'));
      await until(() => seen.includes('end'), 5000, 10);
      expect(seen).toEqual(['Ann came', 'Ann left', 'end']);
    });

    it('gives a name to one holder at a time: another credential for it is refused', async () => {
      await admitted(store.join(room, as('Alice', 'first'), 'c1'));
      // A second tab of the same credential joins it.
      expect(await store.join(room, as('Alice', 'first'), 'c2')).toMatchObject({ first: false });
      // A token minted while Alice was away: same name, another holder.
      expect(await store.join(room, as('Alice', 'second'), 'c3')).toEqual({ taken: true });
      expect(await store.join(room, as('ALICE ', 'second'), 'c3')).toEqual({ taken: true });
      expect(await store.names(room)).toEqual(['Alice']);
      await store.leave(room, as('Alice', 'first'), 'c1');
      expect(await store.join(room, as('Alice', 'second'), 'c3')).toEqual({ taken: true });
      await store.leave(room, as('Alice', 'first'), 'c2');
      // Once the first holder is gone, the name is free for another.
      expect(await store.join(room, as('Alice', 'second'), 'c3')).toMatchObject({ first: true });
      expect(await store.join(room, as('Alice', 'first'), 'c1')).toEqual({ taken: true });
    });

    it.each([
      ['a capital I for an l', 'Alice', 'AIice'],
      ['a Cyrillic А', 'Alice', '\u0410lice'],
      ['an Armenian օ', 'Bob', 'B\u0585b'],
      ['a Cherokee Ꭺ', 'Alice', '\u13AAlice'],
      ['a Lisu ꓮ', 'Alice', '\uA4EElice'],
      ['a Lisu ꓐ', 'Bob', '\uA4D0ob'],
      ['a digit 0 for an O', 'ODIN', '0DIN'],
      ['rn for m', 'Sam Smith', 'Sarn Srnith'],
      ['another case', 'Ann Lee', 'ann lee'],
      ['a run of spaces', 'Ann Lee', 'Ann  Lee'],
      ['full-width letters', 'Zed', '\uFF3A\uFF45\uFF44'],
    ])('refuses a look-alike (%s) while the name is held', async (_label, name, lookalike) => {
      await admitted(store.join(room, as(name), 'c1'));
      expect(await store.isTaken(room, lookalike)).toBe(true);
      expect(await store.join(room, as(lookalike), 'c2')).toEqual({ taken: true });
      await store.leave(room, as(name), 'c1');
      expect(await store.isTaken(room, lookalike)).toBe(false);
      expect(await store.join(room, as(lookalike), 'c2')).toMatchObject({ taken: false });
    });

    it('lets names that only look alike to a machine live side by side', async () => {
      await admitted(store.join(room, as('Bob'), 'c1'));
      expect(await store.isTaken(room, 'Rob')).toBe(false);
      expect(await store.join(room, as('Rob'), 'c2')).toMatchObject({ taken: false });
      expect(await store.join(room, as('Bobby'), 'c3')).toMatchObject({ taken: false });
    });

    it("lets a rename take a name its own former credential holds (the browser's other tabs)", async () => {
      await admitted(store.join(room, as('Alice', 'first'), 'tab1'));
      await admitted(store.join(room, as('Alice', 'first'), 'tab2'));
      // Tab 1 renames to "alice" with a new credential: its own tab 2 still holds "Alice".
      expect(await store.join(room, as('alice', 'renamed'), 'tab1', undefined, 'first')).toEqual(
        expect.objectContaining({ taken: false, first: true }),
      );
      await store.leave(room, as('Alice', 'first'), 'tab1');
      // Tab 2 follows with the rename's credential.
      expect(await store.join(room, as('alice', 'renamed'), 'tab2', undefined, 'first')).toEqual(
        expect.objectContaining({ taken: false, first: false }),
      );
      expect(await store.leave(room, as('Alice', 'first'), 'tab2')).toEqual({ last: true });
      // Someone else's rename into it is refused.
      await admitted(store.join(room, as('Bob'), 'bob'));
      expect(await store.join(room, as('Alice', 'bobs rename'), 'bob', undefined, 'Bob')).toEqual({
        taken: true,
      });
    });

    it('holds names apart per room', async () => {
      await admitted(store.join(room, as('Alice', 'first'), 'c1'));
      expect(await store.join(`${room}-other`, as('Alice', 'second'), 'c2')).toMatchObject({
        taken: false,
      });
    });

    it('compares names trimmed and case-insensitively, per room', async () => {
      await store.join(room, as('Ann Lee'), 'c1');
      expect(await store.isTaken(room, ' ann lee ')).toBe(true);
      expect(await store.isTaken(room, 'ANN LEE')).toBe(true);
      expect(await store.isTaken(room, 'Ann')).toBe(false);
      expect(await store.isTaken(`${room}-other`, 'Ann Lee')).toBe(false);
    });
  });
}
