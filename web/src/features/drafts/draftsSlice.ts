import { createSlice } from '@reduxjs/toolkit';
import { type Keyed, keyOf } from '../../common/keyed';
import { draftEdited, messageSent, roomForgotten } from '../chat/chatActions';

/**
 * What the user has typed in each room and not sent yet. It outlives the composer: the chat is
 * swapped for "Connecting..." while a new credential is fetched (after a server restart, say), and
 * the user may look at another room meanwhile. Kept in memory only (the spec persists room
 * authentication alone).
 */
export type DraftsState = Keyed<string>;

const initialState: DraftsState = {};

export const draftsSlice = createSlice({
  name: 'drafts',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(draftEdited, (state, { payload: { room, text } }) => {
        if (text === '') delete state[keyOf(room)];
        else state[keyOf(room)] = text;
      })
      .addCase(messageSent, (state, { payload: { room } }) => {
        delete state[keyOf(room)];
      })
      .addCase(roomForgotten, (state, { payload: { room } }) => {
        delete state[keyOf(room)];
      });
  },
});

/** The room's unsent text ('' for none). */
export const selectDraft = (state: { drafts: DraftsState }, room: string): string =>
  state.drafts[keyOf(room)] ?? '';
