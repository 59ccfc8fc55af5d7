import { type ChatBus } from '../../src/bus/chat-bus.port';
import { nameClaim, nameForms } from '../../src/bus/name-claim';
import { type PresenceStore } from '../../src/bus/presence.port';
import { type NewRoom, type RoomSettingsStore } from '../../src/bus/room-settings.port';

export interface RoomSettingsUnderTest {
  store: RoomSettingsStore;
  /** Another replica's store on the same storage (the store itself when embedded). */
  peer: RoomSettingsStore;
  /** The presence the store finds participants in (remove, hand over). */
  presence: PresenceStore;
  /** The bus whose stored sequence makes a room exist. */
  bus: ChatBus;
  /** Lets `ms` pass for the store's clock. */
  elapse(ms: number): Promise<void>;
  dispose(): Promise<void>;
}

const PLAIN: NewRoom = { encrypted: false, keyCheck: null, disappearAfter: 0 };
const SECRET: NewRoom = {
  encrypted: true,
  keyCheck: 'kCkgsYkkv54-WIGsWY4ydg',
  disappearAfter: 3600,
};
/** Removals short enough for a test to see them lapse. */
const REMOVAL = { holderMs: 600, nameMs: 300 };

const ann = nameClaim('Ann', 'holder-ann');
const bob = nameClaim('Bob', 'holder-bob');

/** The behaviour every `RoomSettingsStore` driver must have (protocol/README.md §6.9–§6.11). */
export function describeRoomSettingsContract(
  driver: string,
  create: () => Promise<RoomSettingsUnderTest>,
): void {
  describe(`RoomSettingsStore contract: ${driver}`, () => {
    let subject: RoomSettingsUnderTest;
    let store: RoomSettingsStore;
    let peer: RoomSettingsStore;
    let counter = 0;
    let room: string;

    beforeEach(async () => {
      subject = await create();
      ({ store, peer } = subject);
      room = `settings-${Date.now()}-${++counter}`;
    });
    afterEach(() => subject.dispose());

    const join = async (claim = bob, connection = `c-${claim.name}`) => {
      const joined = await subject.presence.join(room, claim, connection);
      if (joined.taken) throw new Error(`${claim.name} could not join`);
    };

    it('creates a room once, with its settings and its creator, for every replica', async () => {
      expect(await store.create(room, SECRET, ann)).toEqual({
        created: true,
        record: { ...SECRET, locked: false, creator: 'holder-ann', creatorName: 'Ann' },
      });
      expect(await peer.create(room, PLAIN, bob)).toEqual({
        created: false,
        record: { ...SECRET, locked: false, creator: 'holder-ann', creatorName: 'Ann' },
      });
      expect(await peer.get(room)).toMatchObject({ encrypted: true, creator: 'holder-ann' });
      expect(await store.get(`${room}-other`)).toBeNull();
    });

    it('creates nothing for a room in use: someone present, or a stored sequence', async () => {
      await join(bob);
      expect(await store.create(room, SECRET, ann)).toEqual({ created: false, record: null });
      const used = `${room}-used`;
      await subject.bus.history(used, { count: 1 });
      expect(await store.create(used, SECRET, ann)).toEqual({ created: false, record: null });
      expect(await store.get(room)).toBeNull();
    });

    it('answers a create sent again by its own creator as created', async () => {
      await store.create(room, PLAIN, ann);
      expect(await peer.create(room, PLAIN, ann)).toMatchObject({ created: true });
    });

    it('lets the creator alone lock, unlock and set disappearing messages', async () => {
      await store.create(room, PLAIN, ann);
      expect(await peer.control(room, 'holder-bob', { action: 'lock' }, REMOVAL)).toEqual({
        done: false,
        refused: 'not_creator',
      });
      expect(await peer.control(room, 'holder-ann', { action: 'lock' }, REMOVAL)).toMatchObject({
        done: true,
        changed: true,
        record: { locked: true },
      });
      expect(await store.control(room, 'holder-ann', { action: 'lock' }, REMOVAL)).toMatchObject({
        done: true,
        changed: false,
      });
      expect(await store.get(room)).toMatchObject({ locked: true });
      const later = { action: 'disappear', after: 86_400 } as const;
      expect(await store.control(room, 'holder-ann', later, REMOVAL)).toMatchObject({
        changed: true,
        record: { disappearAfter: 86_400, locked: true },
      });
      await store.control(room, 'holder-ann', { action: 'unlock' }, REMOVAL);
      expect(await peer.get(room)).toMatchObject({ locked: false, disappearAfter: 86_400 });
    });

    it('refuses every control in a room without a creator', async () => {
      expect(await store.control(room, 'holder-ann', { action: 'lock' }, REMOVAL)).toEqual({
        done: false,
        refused: 'not_creator',
      });
    });

    it('hands the right over to a present participant only', async () => {
      await store.create(room, PLAIN, ann);
      await join(ann);
      const toBob = { action: 'hand_over', target: nameForms('bob') } as const;
      expect(await store.control(room, 'holder-ann', toBob, REMOVAL)).toEqual({
        done: false,
        refused: 'not_present',
      });
      const toSelf = { action: 'hand_over', target: nameForms('Ann') } as const;
      expect(await store.control(room, 'holder-ann', toSelf, REMOVAL)).toMatchObject({
        refused: 'not_present',
      });
      await join(bob);
      expect(await peer.control(room, 'holder-ann', toBob, REMOVAL)).toMatchObject({
        done: true,
        changed: true,
        target: { name: 'Bob', holder: 'holder-bob' },
        record: { creator: 'holder-bob', creatorName: 'Bob' },
      });
      expect(await store.control(room, 'holder-ann', { action: 'lock' }, REMOVAL)).toMatchObject({
        refused: 'not_creator',
      });
    });

    it('removes a participant: holder refused, name and look-alikes barred, then both lapse', async () => {
      await store.create(room, PLAIN, ann);
      await join(ann);
      await join(bob);
      const remove = { action: 'remove', target: nameForms(' BOB ') } as const;
      expect(await store.control(room, 'holder-ann', remove, REMOVAL)).toMatchObject({
        done: true,
        target: { name: 'Bob', holder: 'holder-bob' },
      });
      expect(await peer.isRemoved(room, 'holder-bob')).toBe(true);
      expect(await peer.isRemoved(room, 'holder-ann')).toBe(false);
      expect(await subject.presence.join(room, nameClaim('Robert', 'holder-bob'), 'c2')).toEqual({
        taken: true,
        removed: true,
      });
      // The same key, and a Cyrillic В that looks the same, are barred; another name is not.
      for (const [name, barred] of [
        ['bob', true],
        ['Воb', true],
        ['Cleo', false],
      ] as const) {
        expect(await peer.checkCredentials(room, nameForms(name), null)).toMatchObject({ barred });
      }
      expect(await peer.checkCredentials(room, nameForms('Cleo'), 'holder-bob')).toEqual({
        record: expect.objectContaining({ creator: 'holder-ann' }) as unknown,
        barred: false,
        member: false,
        taken: false,
      });
      expect(await peer.checkCredentials(room, nameForms('Cleo'), 'holder-ann')).toMatchObject({
        member: true,
      });
      await subject.elapse(REMOVAL.nameMs + 100);
      expect(await peer.checkCredentials(room, nameForms('Bob'), null)).toMatchObject({
        barred: false,
      });
      expect(await peer.isRemoved(room, 'holder-bob')).toBe(true);
      await subject.elapse(REMOVAL.holderMs - REMOVAL.nameMs);
      expect(await peer.isRemoved(room, 'holder-bob')).toBe(false);
    });

    it('tells a credential call whether a present name passes for the one asked', async () => {
      await join(ann);
      for (const [name, taken] of [
        ['Ann', true],
        [' ANN ', true],
        ['Аnn', true],
        ['Anna', false],
      ] as const) {
        expect(await peer.checkCredentials(room, nameForms(name.trim()), null)).toMatchObject({
          record: null,
          taken,
        });
      }
    });

    it('moves the creator right with its holder on a rename, and only then', async () => {
      await store.create(room, PLAIN, ann);
      expect(await peer.renamed(room, 'holder-bob', nameClaim('Bobby', 'holder-bobby'))).toBeNull();
      expect(await peer.renamed(room, 'holder-ann', nameClaim('Annie', 'holder-annie'))).toEqual(
        expect.objectContaining({ creator: 'holder-annie', creatorName: 'Annie' }),
      );
      expect(await store.get(room)).toMatchObject({
        creator: 'holder-annie',
        creatorName: 'Annie',
      });
    });
  });
}
