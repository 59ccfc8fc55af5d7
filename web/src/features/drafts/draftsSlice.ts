import { createSlice } from '@reduxjs/toolkit';
import { draftEdited, messageSent, roomForgotten } from '../chat/chatActions';

/**
 * What the user has typed in each room and not sent yet. It outlives the composer: the chat is
 * swapped for "Connecting..." while a new credential is fetched (after a server restart, say), and
 * the user may look at another room meanwhile. Kept in memory only (the spec persists room
 * authentication alone).
 */
export type DraftsState = Record<string, string>;

const initialState: DraftsState = {};

export const draftsSlice = createSlice({
  name: 'drafts',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(draftEdited, (state, { payload: { room, text } }) => {
        if (text === '') delete state[room];
        else state[room] = text;
      })
      .addCase(messageSent, (state, { payload: { room } }) => {
        delete state[room];
      })
      .addCase(roomForgotten, (state, { payload: { room } }) => {
        delete state[room];
      });
  },
});

/** The room's unsent text ('' for none). */
export const selectDraft = (state: { drafts: DraftsState }, room: string): string =>
  state.drafts[room] ?? '';
