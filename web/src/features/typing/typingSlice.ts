import { createSlice } from '@reduxjs/toolkit';
import { TYPING_STALE_MS } from '@taco/protocol';
import {
  connectionClosed,
  participantRenamed,
  participantRenamedAway,
  presenceUpdated,
  typingExpired,
  typingUpdated,
} from '../chat/chatActions';

/** Whether a participant is typing, and when that was last said (spec §3's participant fields). */
export interface TypingEntry {
  typing: boolean;
  /** Milliseconds since the epoch of the last typing update. */
  lastTypingTime: number;
}

/** Room id → participant name → typing. */
export type TypingState = Record<string, Record<string, TypingEntry>>;

const initialState: TypingState = {};

export const typingSlice = createSlice({
  name: 'typing',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(typingUpdated, (state, action) => {
        const { room, sender, typing, time } = action.payload;
        (state[room] ??= {})[sender] = { typing, lastTypingTime: time };
      })
      .addCase(typingExpired, (state, action) => {
        for (const entry of Object.values(state[action.payload.room] ?? {})) {
          if (entry.typing && action.payload.now - entry.lastTypingTime >= TYPING_STALE_MS) {
            entry.typing = false;
          }
        }
      })
      .addCase(participantRenamed, (state, action) => {
        const entry = state[action.payload.room]?.[action.payload.from];
        if (entry) entry.typing = false;
      })
      .addCase(participantRenamedAway, (state, action) => {
        delete state[action.payload.room]?.[action.payload.name];
      })
      .addCase(presenceUpdated, (state, action) => {
        const entry = state[action.payload.room]?.[action.payload.sender];
        if (entry && !action.payload.active) entry.typing = false;
      })
      .addCase(connectionClosed, (state, action) => {
        // Nobody's typing is known while the socket is closed.
        for (const entry of Object.values(state[action.payload.room] ?? {})) entry.typing = false;
      });
  },
});

const NO_ONE: Record<string, TypingEntry> = {};

/** Name → typing entry for everyone who sent a typing frame in `room`. */
export const selectRoomTyping = (state: { typing: TypingState }, room: string) =>
  state.typing[room] ?? NO_ONE;
