import { combineReducers, configureStore } from '@reduxjs/toolkit';
import {
  FLUSH,
  PAUSE,
  PERSIST,
  persistReducer,
  PURGE,
  REGISTER,
  REHYDRATE,
  type Storage,
} from 'redux-persist';
import { apiSlice } from '../api/apiSlice';
import { connectionSlice } from '../features/connection/connectionSlice';
import { draftsSlice } from '../features/drafts/draftsSlice';
import { feedSlice } from '../features/feed/feedSlice';
import { messagesSlice } from '../features/messages/messagesSlice';
import { noticesSlice } from '../features/notices/noticesSlice';
import {
  notifyPrefsPersistConfig,
  notifyPrefsSlice,
} from '../features/notifyPrefs/notifyPrefsSlice';
import { presenceSlice } from '../features/presence/presenceSlice';
import { authErrorsSlice } from '../features/roomAuth/authErrorsSlice';
import { roomAuthSlice } from '../features/roomAuth/roomAuthSlice';
import { roomSettingsSlice } from '../features/roomSettings/roomSettingsSlice';
import { typingSlice } from '../features/typing/typingSlice';
import { defaultSocketDeps, type SocketDeps } from '../socket/socketDeps';
import { createSocketMiddleware } from '../socket/socketMiddleware';
import { localStorageAdapter, makePersistConfig } from '../features/roomAuth/persistence';

/** The reducers; `storage` keeps the slices persisted apart from `persist:root`. */
export function makeRootReducer(storage: Storage) {
  return combineReducers({
    [apiSlice.reducerPath]: apiSlice.reducer,
    roomAuth: roomAuthSlice.reducer,
    roomSettings: roomSettingsSlice.reducer,
    authErrors: authErrorsSlice.reducer,
    connection: connectionSlice.reducer,
    messages: messagesSlice.reducer,
    feed: feedSlice.reducer,
    presence: presenceSlice.reducer,
    typing: typingSlice.reducer,
    notices: noticesSlice.reducer,
    drafts: draftsSlice.reducer,
    notifyPrefs: persistReducer(notifyPrefsPersistConfig(storage), notifyPrefsSlice.reducer),
  });
}

export type RootState = ReturnType<ReturnType<typeof makeRootReducer>>;

/** What a store can be given instead of the browser's: tests pass fakes. */
export interface StoreDeps {
  socket: Partial<SocketDeps>;
  storage: Storage;
}

export function makeStore(preloadedState?: Partial<RootState>, deps: Partial<StoreDeps> = {}) {
  const storage = deps.storage ?? localStorageAdapter;
  const persisted = persistReducer(makePersistConfig<RootState>(storage), makeRootReducer(storage));
  const socketDeps: SocketDeps = { ...defaultSocketDeps(), ...deps.socket };
  return configureStore({
    reducer: persisted,
    preloadedState: preloadedState as ReturnType<typeof persisted> | undefined,
    middleware: (getDefaultMiddleware) =>
      getDefaultMiddleware({
        serializableCheck: { ignoredActions: [FLUSH, REHYDRATE, PAUSE, PERSIST, PURGE, REGISTER] },
      }).concat(apiSlice.middleware, createSocketMiddleware(socketDeps)),
  });
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
