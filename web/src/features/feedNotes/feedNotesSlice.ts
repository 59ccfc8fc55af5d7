import { createSlice } from '@reduxjs/toolkit';
import { participantRenamed, roomForgotten } from '../chat/chatActions';

/** A line in the feed that is not a message: "{old} is now {new}". */
export interface FeedNote {
  key: string;
  text: string;
  /** Unix time in seconds, to place it among the messages. */
  timestamp: number;
}

/** Room id → its notes, oldest first. */
export type FeedNotesState = Record<string, FeedNote[]>;

/** Notes kept per room; older ones drop off. */
export const FEED_NOTES_MAX = 50;

const initialState: FeedNotesState = {};

export const feedNotesSlice = createSlice({
  name: 'feedNotes',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(participantRenamed, (state, { payload }) => {
        const notes = (state[payload.room] ??= []);
        notes.push({
          key: `rename:${payload.time}:${payload.from}:${payload.to}`,
          text: `${payload.from} is now ${payload.to}`,
          timestamp: payload.time / 1000,
        });
        if (notes.length > FEED_NOTES_MAX) notes.splice(0, notes.length - FEED_NOTES_MAX);
      })
      .addCase(roomForgotten, (state, { payload }) => {
        delete state[payload.room];
      });
  },
});

const NO_NOTES: FeedNote[] = [];

export const selectFeedNotes = (state: { feedNotes: FeedNotesState }, room: string) =>
  state.feedNotes[room] ?? NO_NOTES;

/**
 * Messages and notes in one list by time: a note goes before the first message sent after it
 * (messages keep their own order).
 */
export function withNotes<M extends { timestamp: number }>(
  messages: readonly M[],
  notes: readonly FeedNote[],
): Array<{ message: M } | { note: FeedNote }> {
  const items: Array<{ message: M } | { note: FeedNote }> = [];
  let next = 0;
  for (const message of messages) {
    while (next < notes.length && notes[next]!.timestamp < message.timestamp) {
      items.push({ note: notes[next]! });
      next++;
    }
    items.push({ message });
  }
  for (; next < notes.length; next++) items.push({ note: notes[next]! });
  return items;
}
