import { persistStore } from 'redux-persist';
import { memoryStorage } from '../../test/memoryStorage';
import { roomCreated } from '../features/chat/chatActions';
import {
  makePersistConfig,
  PERSIST_KEY_PREFIX,
  PERSIST_ROOT_KEY,
  PERSIST_TIMEOUT_MS,
  PERSIST_VERSION,
  versionNumber,
} from './persistence';
import { makeStore } from './store';

const KEY = `${PERSIST_KEY_PREFIX}${PERSIST_ROOT_KEY}`;
const record = (rejectionCount: number) => ({
  roomID: 'teal-otter',
  senderName: 'Alice',
  token: 'tok',
  authenticated: true,
  rejectionCount,
});

function stored(version: number, roomAuth: unknown, extra: Record<string, string> = {}) {
  return {
    [KEY]: JSON.stringify({
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
        'teal-otter': record(3),
        'red-fox': { ...record(1), roomID: 'red-fox' },
      }),
    );
    expect(store.getState().roomAuth['teal-otter']).toEqual(record(0));
    expect(store.getState().roomAuth['red-fox']?.rejectionCount).toBe(0);
  });

  it('discards saved state of another build version', async () => {
    const { store } = await rehydrate(stored(PERSIST_VERSION + 1, { 'teal-otter': record(0) }));
    expect(store.getState().roomAuth).toEqual({});
  });

  it('persists only the authentication part', async () => {
    const { store, data, flush } = await rehydrate({});
    store.dispatch(roomCreated({ room: 'teal-otter' }));
    await flush();
    const saved = JSON.parse(data.get(KEY) ?? '{}') as Record<string, string>;
    expect(Object.keys(saved).sort()).toEqual(['_persist', 'roomAuth']);
    expect(JSON.parse(saved.roomAuth ?? '{}')).toHaveProperty('teal-otter');
  });
});
