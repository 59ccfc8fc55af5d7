import { createSlice } from '@reduxjs/toolkit';
import type { RoomSettings as WireSettings } from '@taco/protocol';
import { roomsApi } from '../../api/roomsApi';
import { type Keyed, keyOf } from '../../common/keyed';
import { roomForgotten, roomFrameReceived } from '../chat/chatActions';

/**
 * A room's settings and creator (protocol/README.md §6.9), as this tab last heard them: from the
 * room's info (`GET /api/room/:room_id`, read before joining), the credential answers, and the
 * room frame (type 9) on every join and change. This slice is their one owner; everything reads
 * them through `selectRoomSettings`.
 */
export interface RoomSettingsRecord {
  encrypted: boolean;
  /**
   * The encrypted room's key check (§6.12), from the room's info, a credential answer or the room
   * frame, whichever came last; null in a plain room or when not told yet.
   */
  keyCheck: string | null;
  locked: boolean;
  /** Seconds after which messages disappear; 0: never (§6.13). */
  disappearAfter: number;
  /** The values `disappearAfter` may take; empty until the server said. */
  choices: number[];
  /** The name the creator right was last taken or moved under; null: none or not known. */
  creator: string | null;
  /** Whether this tab's credential holds the creator right. */
  isCreator: boolean;
}

/** Room id → its settings. */
export type RoomSettingsState = Keyed<RoomSettingsRecord>;

export const PLAIN_ROOM: RoomSettingsRecord = {
  encrypted: false,
  keyCheck: null,
  locked: false,
  disappearAfter: 0,
  choices: [],
  creator: null,
  isCreator: false,
};

const initialState: RoomSettingsState = {};

/** Takes the settings an HTTP answer carries; `creator` only when the answer had it. */
function adopt(
  state: RoomSettingsState,
  room: string,
  settings: WireSettings | null | undefined,
  isCreator?: boolean,
) {
  // A server without settings (older than §6.9) answers none: the room is plain.
  if (settings === undefined) return;
  const record = (state[keyOf(room)] ??= { ...PLAIN_ROOM });
  if (settings === null) {
    // The room does not exist (yet): it has no settings to keep but the defaults.
    Object.assign(record, { ...PLAIN_ROOM, choices: record.choices });
    return;
  }
  record.encrypted = settings.encrypted;
  record.keyCheck = settings.key_check;
  record.locked = settings.locked;
  record.disappearAfter = settings.disappear_after;
  record.choices = settings.disappear_choices;
  if (settings.creator !== undefined) record.creator = settings.creator;
  if (isCreator !== undefined) record.isCreator = isCreator;
}

export const roomSettingsSlice = createSlice({
  name: 'roomSettings',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(roomFrameReceived, (state, { payload }) => {
        const record = (state[keyOf(payload.room)] ??= { ...PLAIN_ROOM });
        record.encrypted = payload.encrypted;
        // The frame's key check is the room's own: it replaces one read from an older answer.
        if (payload.keyCheck !== undefined) record.keyCheck = payload.keyCheck;
        record.locked = payload.locked;
        record.disappearAfter = payload.disappearAfter;
        record.creator = payload.creator;
        record.isCreator = payload.isCreator;
      })
      .addCase(roomForgotten, (state, { payload }) => {
        delete state[keyOf(payload.room)];
      })
      .addMatcher(roomsApi.endpoints.roomInfo.matchFulfilled, (state, { payload }) => {
        adopt(state, payload.room_id, payload.settings);
      })
      .addMatcher(roomsApi.endpoints.createRoom.matchFulfilled, (state, { payload }) => {
        adopt(state, payload.room, payload.settings, payload.creator);
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchFulfilled, (state, { payload }) => {
        adopt(state, payload.room_id, payload.settings);
      });
  },
});

type WithSettings = { roomSettings: RoomSettingsState };

/** The room's settings: a plain room until told otherwise. */
export const selectRoomSettings = (state: WithSettings, room: string): RoomSettingsRecord =>
  state.roomSettings[keyOf(room)] ?? PLAIN_ROOM;

/** Whether this tab heard the room's settings at all (from its info, a credential or a frame). */
export const selectSettingsKnown = (state: WithSettings, room: string) =>
  state.roomSettings[keyOf(room)] !== undefined;
