import type { PersistConfig, PersistedState, Persistor, Storage } from 'redux-persist';
import { type RoomAuthState, withRejectionsReset } from './roomAuthSlice';
import { config } from '../../common/config';
import { withStorage } from '../../common/browserStorage';

/** Persisted client state: redux-persist's key prefix, the root key and the restore time-out. */
export const PERSIST_KEY_PREFIX = 'persist:';
export const PERSIST_ROOT_KEY = 'root';
/** The `localStorage` key of the persisted state: `persist:root`. */
export const PERSIST_STORAGE_KEY = `${PERSIST_KEY_PREFIX}${PERSIST_ROOT_KEY}`;
export const PERSIST_TIMEOUT_MS = 5000;

/** redux-persist versions are numbers: the build version, hashed. */
export function versionNumber(buildVersion: string): number {
  let hash = 5381;
  for (let i = 0; i < buildVersion.length; i++) {
    hash = ((hash * 33) ^ buildVersion.charCodeAt(i)) >>> 0;
  }
  return hash;
}

export const PERSIST_VERSION = versionNumber(config.buildVersion);

type Persisted = NonNullable<PersistedState> & { roomAuth?: RoomAuthState };

/**
 * Restored state from another build version is discarded; every room's rejection count starts
 * again at 0.
 */
export function migrate(state: PersistedState, version: number): Promise<PersistedState> {
  if (!state || state._persist.version !== version) return Promise.resolve(undefined);
  const restored = state as Persisted;
  if (!restored.roomAuth) return Promise.resolve(state);
  return Promise.resolve({ ...restored, roomAuth: withRejectionsReset(restored.roomAuth) });
}

/**
 * `localStorage` behind redux-persist's promise interface. A browser may refuse storage (site data
 * blocked makes merely reading `window.localStorage` throw; a full quota refuses writes): then
 * nothing is restored and choices hold for this page only, and the app still starts.
 */
export const localStorageAdapter: Storage = {
  getItem: (key: string) => Promise.resolve(withStorage((storage) => storage.getItem(key), null)),
  setItem: (key: string, value: string) =>
    Promise.resolve(withStorage((storage) => storage.setItem(key, value), undefined)),
  removeItem: (key: string) =>
    Promise.resolve(withStorage((storage) => storage.removeItem(key), undefined)),
};

/** Only the room authentication is persisted, under `persist:root`. */
export function makePersistConfig<S>(storage: Storage): PersistConfig<S> {
  return {
    key: PERSIST_ROOT_KEY,
    storage,
    version: PERSIST_VERSION,
    whitelist: ['roomAuth'],
    migrate,
    timeout: PERSIST_TIMEOUT_MS,
  };
}

/** Where the page says it is going away: `window` and `document` in the browser. */
export interface PageLifecycle {
  window: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  document: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> & {
    visibilityState: DocumentVisibilityState;
  };
}

/**
 * redux-persist writes a change on later timer ticks, one key per tick, and a hidden tab's timers
 * are throttled: a choice made just before a reload, a tab close or a switch to another app would
 * be lost. Every pending write is made at once (`localStorage` is synchronous) when the page is
 * hidden or unloaded. Returns the function that stops listening.
 */
export function flushWhenPageHides(persistor: Pick<Persistor, 'flush'>, page: PageLifecycle) {
  const flush = () => void persistor.flush();
  const onVisibilityChange = () => {
    if (page.document.visibilityState === 'hidden') flush();
  };
  page.window.addEventListener('pagehide', flush);
  page.document.addEventListener('visibilitychange', onVisibilityChange);
  return () => {
    page.window.removeEventListener('pagehide', flush);
    page.document.removeEventListener('visibilitychange', onVisibilityChange);
  };
}
