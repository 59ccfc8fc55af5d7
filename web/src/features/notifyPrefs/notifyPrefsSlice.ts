import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import {
  getStoredState,
  KEY_PREFIX,
  type PersistConfig,
  type PersistedState,
  type Storage,
} from 'redux-persist';
import { type Keyed, keyOf } from '../../common/keyed';

/** What the room's bell lets through: every message from others, mentions of you, or nothing. */
export type NotifyMode = 'all' | 'mentions' | 'off';

export const NOTIFY_MODES: ReadonlyArray<{ mode: NotifyMode; label: string }> = [
  { mode: 'all', label: 'All messages' },
  { mode: 'mentions', label: 'Mentions only' },
  { mode: 'off', label: 'Off' },
];

/** The spec's behaviour: others' single messages notify. */
export const DEFAULT_NOTIFY_MODE: NotifyMode = 'all';

/** Room id → its bell's mode, where the user changed it. */
export type NotifyPrefsState = Keyed<NotifyMode>;

const initialState: NotifyPrefsState = {};

export const notifyPrefsSlice = createSlice({
  name: 'notifyPrefs',
  initialState,
  reducers: {
    notifyModeChosen(state, action: PayloadAction<{ room: string; mode: NotifyMode }>) {
      state[keyOf(action.payload.room)] = action.payload.mode;
    },
  },
});

export const { notifyModeChosen } = notifyPrefsSlice.actions;

const KEY = 'notifyPrefs';
const KEY_PREFIX_OF_OURS = 'taco:';
/** Where the bell is kept: outside the spec's `persist:` prefix, like the theme (`taco:theme`). */
export const NOTIFY_PREFS_STORAGE_KEY = `${KEY_PREFIX_OF_OURS}${KEY}`;

/** Version 2 keys rooms by `keyOf`; version 1 by the room id itself. */
const VERSION = 2;

/**
 * Bells an earlier build kept under the room ids themselves, under their `keyOf` (the one under
 * `__proto__` was never written, and stays lost).
 */
function migrate(state: PersistedState): Promise<PersistedState> {
  if (!state || state._persist.version >= VERSION) return Promise.resolve(state);
  const next: Keyed<unknown> & NonNullable<PersistedState> = { _persist: state._persist };
  for (const [room, mode] of Object.entries(state)) {
    if (room !== '_persist') next[keyOf(room)] = mode;
  }
  return Promise.resolve(next);
}

/**
 * The bell is remembered per browser under its own key (`taco:notifyPrefs`), apart from the
 * spec's `persist:root`, the only `persist:` key, which holds room authentication only; a new
 * build keeps it.
 */
export function notifyPrefsPersistConfig(storage: Storage): PersistConfig<NotifyPrefsState> {
  return {
    key: KEY,
    keyPrefix: KEY_PREFIX_OF_OURS,
    storage,
    version: VERSION,
    migrate,
    // Earlier builds kept it under redux-persist's own prefix: read once, then dropped (it is
    // written under the new key).
    getStoredState: async (config) => {
      const stored = await getStoredState(config);
      if (stored !== undefined) return stored as PersistedState;
      const moved = await getStoredState({ ...config, keyPrefix: KEY_PREFIX });
      await storage.removeItem(`${KEY_PREFIX}${KEY}`);
      return moved as PersistedState;
    },
  };
}

export const selectNotifyMode = (state: { notifyPrefs: NotifyPrefsState }, room: string) =>
  state.notifyPrefs[keyOf(room)] ?? DEFAULT_NOTIFY_MODE;
