import { createSelector, createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { isSameUserName } from '@taco/protocol';
import { roomsApi } from '../../api/roomsApi';
import { type Keyed, keyOf } from '../../common/keyed';
import {
  connectionLost,
  credentialsShared,
  type FormerName,
  renamed,
  roomCreated,
  roomForgotten,
  roomJoined,
  rejoinAsked,
  roomKeyFound,
} from '../chat/chatActions';

/** How many former names a room remembers. */
export const FORMER_NAMES_MAX = 8;

/** Authentication for one room: the persisted part of the state. */
export interface RoomAuthRecord {
  roomID: string;
  senderName: string;
  token: string;
  authenticated: boolean;
  rejectionCount: number;
  /** The user's names in the room before a rename, the latest last. */
  formerNames?: FormerName[];
  /** An end-to-end encrypted room's key (protocol/README.md §6.12), from the link's fragment. */
  key?: string;
  /** The room's creator removed this credential's holder (close 4403): its token is gone. */
  removed?: boolean;
}

/** Room id → its authentication. */
export type RoomAuthState = Keyed<RoomAuthRecord>;

const initialState: RoomAuthState = {};

/** Where an authorization rejection came from. */
export type RejectionSource = 'socket' | 'http';

function newRecord(room: string): RoomAuthRecord {
  return { roomID: room, senderName: '', token: '', authenticated: false, rejectionCount: 0 };
}

function authenticate(state: RoomAuthState, room: string, senderName: string, token: string) {
  const key = keyOf(room);
  const { formerNames, key: roomKey } = state[key] ?? {};
  const record: RoomAuthRecord = {
    roomID: room,
    senderName,
    token,
    authenticated: true,
    rejectionCount: 0,
  };
  if (formerNames) record.formerNames = formerNames;
  if (roomKey !== undefined) record.key = roomKey;
  state[key] = record;
}

function reject(state: RoomAuthState, room: string) {
  const record = state[keyOf(room)] ?? newRecord(room);
  record.rejectionCount += 1;
  record.token = '';
  record.authenticated = false;
  state[keyOf(room)] = record;
}

export const roomAuthSlice = createSlice({
  name: 'roomAuth',
  initialState,
  reducers: {
    /** The server refused this room's token (socket close 4401 or HTTP 401). */
    unauthorized(state, action: PayloadAction<{ room: string; source: RejectionSource }>) {
      reject(state, action.payload.room);
    },
    /**
     * The server refused the socket its name (close 4409): someone else holds it, or one that
     * passes for it, in the room right now. The token is no good there while they do.
     */
    nameRefused(state, action: PayloadAction<{ room: string }>) {
      reject(state, action.payload.room);
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(roomCreated, (state, action) => {
        const { room } = action.payload;
        state[keyOf(room)] ??= newRecord(room);
      })
      .addCase(roomJoined, (state, action) => {
        // Records are kept in the order rooms were last joined: this one moves to the end.
        const key = keyOf(action.payload.room);
        const record = state[key];
        if (!record) return;
        delete state[key];
        state[key] = record;
      })
      .addCase(renamed, (state, action) => {
        const { room, name, token, former } = action.payload;
        authenticate(state, room, name, token);
        if (!former) return;
        // Messages of an earlier epoch are gone: their names no longer tell anything.
        const record = state[keyOf(room)]!;
        const kept = (record.formerNames ?? []).filter((f) => f.epoch === former.epoch);
        record.formerNames = [...kept, former].slice(-FORMER_NAMES_MAX);
      })
      .addCase(credentialsShared, (state, action) => {
        const { room, name, token } = action.payload;
        const record = state[keyOf(room)];
        if (!record || record.authenticated || !isSameUserName(record.senderName, name)) return;
        authenticate(state, room, name, token);
      })
      .addCase(roomKeyFound, (state, { payload: { room, key } }) => {
        (state[keyOf(room)] ??= newRecord(room)).key = key;
      })
      .addCase(connectionLost, (state, { payload: { room, reason } }) => {
        const record = state[keyOf(room)];
        if (reason !== 'removed' || !record) return;
        // Removed for good (§6.11): the token opens nothing any more, and no retry asks again.
        record.token = '';
        record.authenticated = false;
        record.removed = true;
      })
      .addCase(rejoinAsked, (state, { payload: { room } }) => {
        const record = state[keyOf(room)];
        if (!record?.removed) return;
        // The removed name stays barred for a while: the user picks another one (the key stays).
        delete record.removed;
        record.senderName = '';
      })
      .addCase(roomForgotten, (state, action) => {
        delete state[keyOf(action.payload.room)];
      })
      .addMatcher(roomsApi.endpoints.createRoom.matchFulfilled, (state, action) => {
        const { room, name, token } = action.payload;
        authenticate(state, room, name, token);
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchFulfilled, (state, action) => {
        const { room_id, sender_id, token } = action.payload;
        authenticate(state, room_id, sender_id, token);
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchRejected, (state, action) => {
        if (action.payload?.status === 401) reject(state, action.meta.arg.originalArgs.room);
      });
  },
});

export const { nameRefused, unauthorized } = roomAuthSlice.actions;

/** Every room record with its rejection count set back to 0 (applied when state is restored). */
export function withRejectionsReset(state: RoomAuthState): RoomAuthState {
  const next: RoomAuthState = {};
  for (const record of Object.values(state)) {
    next[keyOf(record.roomID)] = { ...record, rejectionCount: 0 };
  }
  return next;
}

export const selectRoomAuth = (state: { roomAuth: RoomAuthState }, room: string) =>
  state.roomAuth[keyOf(room)];

/** The key this browser holds for an encrypted room, if any. */
export const selectRoomKey = (state: { roomAuth: RoomAuthState }, room: string) =>
  state.roomAuth[keyOf(room)]?.key;

/** Whether the room's creator removed this browser's holder from the room (close 4403). */
export const selectRemoved = (state: { roomAuth: RoomAuthState }, room: string) =>
  state.roomAuth[keyOf(room)]?.removed === true;

/** How many rooms the home page offers to rejoin. */
export const RECENT_ROOMS_MAX = 8;

/** Rooms this browser holds a name for, the last joined first (the home page's recent rooms). */
export const selectRecentRooms = createSelector(
  [(state: { roomAuth: RoomAuthState }) => state.roomAuth],
  (roomAuth): Array<{ room: string; name: string }> =>
    Object.values(roomAuth)
      .filter((record) => record.senderName !== '')
      .reverse()
      .slice(0, RECENT_ROOMS_MAX)
      .map((record) => ({ room: record.roomID, name: record.senderName })),
);
