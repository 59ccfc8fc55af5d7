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
import { type Keyed, keyOf } from '../../common/keyed';

/** Whether a participant is typing, and when that was last said (spec §3's participant fields). */
export interface TypingEntry {
  typing: boolean;
  /** Milliseconds since the epoch of the last typing update. */
  lastTypingTime: number;
}

/** Room id → participant name → typing. */
export type TypingState = Keyed<Keyed<TypingEntry>>;

const initialState: TypingState = {};

export const typingSlice = createSlice({
  name: 'typing',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(typingUpdated, (state, action) => {
        const { room, sender, typing, time } = action.payload;
        (state[keyOf(room)] ??= {})[keyOf(sender)] = { typing, lastTypingTime: time };
      })
      .addCase(typingExpired, (state, action) => {
        for (const entry of Object.values(state[keyOf(action.payload.room)] ?? {})) {
          if (entry.typing && action.payload.now - entry.lastTypingTime >= TYPING_STALE_MS) {
            entry.typing = false;
          }
        }
      })
      .addCase(participantRenamed, (state, action) => {
        const entry = state[keyOf(action.payload.room)]?.[keyOf(action.payload.from)];
        if (entry) entry.typing = false;
      })
      .addCase(participantRenamedAway, (state, action) => {
        delete state[keyOf(action.payload.room)]?.[keyOf(action.payload.name)];
      })
      .addCase(presenceUpdated, (state, action) => {
        const entry = state[keyOf(action.payload.room)]?.[keyOf(action.payload.sender)];
        if (entry && !action.payload.active) entry.typing = false;
      })
      .addCase(connectionClosed, (state, action) => {
        // Nobody's typing is known while the socket is closed.
        for (const entry of Object.values(state[keyOf(action.payload.room)] ?? {})) {
          entry.typing = false;
        }
      });
  },
});

const NO_ONE: Keyed<TypingEntry> = {};

/** Name (its `keyOf`) → typing entry for everyone who sent a typing frame in `room`. */
export const selectRoomTyping = (state: { typing: TypingState }, room: string) =>
  state.typing[keyOf(room)] ?? NO_ONE;
