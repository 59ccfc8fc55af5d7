import { persistStore } from 'redux-persist';
import { memoryStorage } from '../../../test/memoryStorage';
import { refuseStorage } from '../../../test/refusedStorage';
import { PROTOTYPE_ROOM_IDS } from '../../../test/prototypeNames';
import { renamed, roomCreated } from '../chat/chatActions';
import {
  NOTIFY_PREFS_STORAGE_KEY,
  notifyModeChosen,
  selectNotifyMode,
} from '../notifyPrefs/notifyPrefsSlice';
import {
  RECENT_ROOMS_MAX,
  type RoomAuthState,
  selectRecentRooms,
  selectRoomAuth,
} from './roomAuthSlice';
import {
  flushWhenPageHides,
  localStorageAdapter,
  makePersistConfig,
  PERSIST_KEY_PREFIX,
  PERSIST_STORAGE_KEY,
  PERSIST_TIMEOUT_MS,
  PERSIST_VERSION,
  versionNumber,
} from './persistence';
import { makeStore } from '../../app/store';
import { keyOf } from '../../common/keyed';

const record = (rejectionCount: number) => ({
  roomID: 'teal-otter',
  senderName: 'Alice',
  token: 'tok',
  authenticated: true,
  rejectionCount,
});

function stored(version: number, roomAuth: unknown, extra: Record<string, string> = {}) {
  return {
    [PERSIST_STORAGE_KEY]: JSON.stringify({
      roomAuth: JSON.stringify(roomAuth),
      ...extra,
      _persist: JSON.stringify({ version, rehydrated: true }),
    }),
  };
}

function rehydrate(initial: Record<string, string>) {
  const { storage, data } = memoryStorage(initial);
  const store = makeStore(undefined, { storage });
  return new Promise<{
    store: typeof store;
    data: Map<string, string>;
    flush: () => Promise<unknown>;
  }>((resolve) => {
    const persistor = persistStore(store, null, () =>
      resolve({ store, data, flush: () => persistor.flush() }),
    );
  });
}

describe('persistence (spec §4 and §9)', () => {
  it('uses key persist:root, the build version and a 5000 ms restore time-out', () => {
    const config = makePersistConfig(memoryStorage().storage);
    expect(`${PERSIST_KEY_PREFIX}${config.key}`).toBe('persist:root');
    expect(config.whitelist).toEqual(['roomAuth']);
    expect(config.timeout).toBe(PERSIST_TIMEOUT_MS);
    expect(config.version).toBe(versionNumber('test-1'));
    expect(versionNumber('0.1.0')).not.toBe(versionNumber('0.1.1'));
  });

  it('restores room authentication and resets every rejection count to 0', async () => {
    const { store } = await rehydrate(
      stored(PERSIST_VERSION, {
        [keyOf('teal-otter')]: record(3),
        [keyOf('red-fox')]: { ...record(1), roomID: 'red-fox' },
      }),
    );
    expect(selectRoomAuth(store.getState(), 'teal-otter')).toEqual(record(0));
    expect(selectRoomAuth(store.getState(), 'red-fox')?.rejectionCount).toBe(0);
  });

  it('discards saved state of another build version', async () => {
    const { store } = await rehydrate(
      stored(PERSIST_VERSION + 1, { [keyOf('teal-otter')]: record(0) }),
    );
    expect(store.getState().roomAuth).toEqual({});
  });

  it('persists only the authentication part', async () => {
    const { store, data, flush } = await rehydrate({});
    store.dispatch(roomCreated({ room: 'teal-otter' }));
    await flush();
    const saved = JSON.parse(data.get(PERSIST_STORAGE_KEY) ?? '{}') as Record<string, string>;
    expect(Object.keys(saved).sort()).toEqual(['_persist', 'roomAuth']);
    const records = Object.values(JSON.parse(saved.roomAuth ?? '{}') as RoomAuthState);
    expect(records.map((r) => r.roomID)).toEqual(['teal-otter']);
  });

  it('keeps names, tokens and bells across a reload in rooms named like Object.prototype properties', async () => {
    // And `_persist`, where redux-persist keeps its own version.
    const rooms = [...PROTOTYPE_ROOM_IDS, '_persist'];
    const { store, data, flush } = await rehydrate({});
    for (const [i, room] of rooms.entries()) {
      store.dispatch(renamed({ room, name: `Ann ${i}`, token: `token ${i}` }));
      store.dispatch(notifyModeChosen({ room, mode: i % 2 === 0 ? 'off' : 'mentions' }));
    }
    await flush();
    const reloaded = (await rehydrate(Object.fromEntries(data))).store.getState();
    for (const [i, room] of rooms.entries()) {
      expect(selectRoomAuth(reloaded, room)).toEqual({
        roomID: room,
        senderName: `Ann ${i}`,
        token: `token ${i}`,
        authenticated: true,
        rejectionCount: 0,
      });
      expect(selectNotifyMode(reloaded, room)).toBe(i % 2 === 0 ? 'off' : 'mentions');
    }
    expect(selectRoomAuth(reloaded, 'teal-otter')).toBeUndefined();
    expect(selectRecentRooms(reloaded).map((r) => r.room)).toEqual(
      [...rooms].reverse().slice(0, RECENT_ROOMS_MAX),
    );
  });

  it('keeps the bells the previous build kept under the room ids themselves', async () => {
    const { store } = await rehydrate({
      [NOTIFY_PREFS_STORAGE_KEY]: JSON.stringify({
        'teal-otter': '"off"',
        constructor: '"mentions"',
        _persist: JSON.stringify({ version: 1, rehydrated: true }),
      }),
    });
    expect(selectNotifyMode(store.getState(), 'teal-otter')).toBe('off');
    expect(selectNotifyMode(store.getState(), 'constructor')).toBe('mentions');
    expect(selectNotifyMode(store.getState(), 'red-fox')).toBe('all');
  });

  describe('when the page goes away', () => {
    function page(visibilityState: DocumentVisibilityState = 'visible') {
      const document = Object.assign(new EventTarget(), { visibilityState });
      return { window: new EventTarget(), document };
    }
    const bellKey = NOTIFY_PREFS_STORAGE_KEY;
    const savedBell = (data: Map<string, string>) =>
      JSON.parse(data.get(bellKey) ?? '{}') as Record<string, string>;

    it('writes a choice made just before a reload at once, on pagehide', async () => {
      const { store, data, flush } = await rehydrate({});
      const lifecycle = page();
      flushWhenPageHides({ flush }, lifecycle);
      store.dispatch(notifyModeChosen({ room: 'teal-otter', mode: 'mentions' }));
      expect(savedBell(data)[keyOf('teal-otter')]).toBeUndefined();
      lifecycle.window.dispatchEvent(new Event('pagehide'));
      expect(savedBell(data)[keyOf('teal-otter')]).toBe('"mentions"');
      // The spec's prefix holds the room authentication alone.
      expect([...data.keys()].filter((key) => key.startsWith('persist:'))).toEqual([
        PERSIST_STORAGE_KEY,
      ]);
    });

    it('takes over a bell an earlier build kept under persist:notifyPrefs, and drops that key', async () => {
      const earlierKey = `${PERSIST_KEY_PREFIX}notifyPrefs`;
      const { store, data } = await rehydrate({
        [earlierKey]: JSON.stringify({
          'teal-otter': '"off"',
          _persist: JSON.stringify({ version: 1, rehydrated: true }),
        }),
      });
      expect(selectNotifyMode(store.getState(), 'teal-otter')).toBe('off');
      expect(data.has(earlierKey)).toBe(false);
    });

    it('writes on a switch away (hidden), not while the page stays visible', async () => {
      const { store, data, flush } = await rehydrate({});
      const lifecycle = page();
      const stop = flushWhenPageHides({ flush }, lifecycle);
      store.dispatch(roomCreated({ room: 'teal-otter' }));
      lifecycle.document.dispatchEvent(new Event('visibilitychange'));
      expect(data.get(PERSIST_STORAGE_KEY) ?? '').not.toContain('teal-otter');
      lifecycle.document.visibilityState = 'hidden';
      lifecycle.document.dispatchEvent(new Event('visibilitychange'));
      expect(JSON.parse(data.get(PERSIST_STORAGE_KEY) ?? '{}')).toHaveProperty('roomAuth');
      expect(data.get(PERSIST_STORAGE_KEY)).toContain('teal-otter');
      stop();
      store.dispatch(notifyModeChosen({ room: 'teal-otter', mode: 'off' }));
      lifecycle.window.dispatchEvent(new Event('pagehide'));
      expect(savedBell(data)[keyOf('teal-otter')]).toBeUndefined();
    });
  });
});

describe('when the browser refuses storage (site data blocked, quota full)', () => {
  let restore: () => void;
  beforeEach(() => (restore = refuseStorage()));
  afterEach(() => restore());

  it('reads nothing stored and writes nowhere, without throwing', async () => {
    await expect(localStorageAdapter.getItem(PERSIST_STORAGE_KEY)).resolves.toBeNull();
    await expect(localStorageAdapter.setItem(PERSIST_STORAGE_KEY, '{}')).resolves.toBeUndefined();
    await expect(localStorageAdapter.removeItem(PERSIST_STORAGE_KEY)).resolves.toBeUndefined();
  });

  it('still starts the app: the store rehydrates empty and room choices work for this page', async () => {
    const store = makeStore();
    await new Promise<void>((resolve) => persistStore(store, null, resolve));
    store.dispatch(roomCreated({ room: 'teal-otter' }));
    expect(selectRoomAuth(store.getState(), 'teal-otter')).toMatchObject({ roomID: 'teal-otter' });
  });
});
