import { createSlice } from '@reduxjs/toolkit';
import type { RoomAction } from '@taco/protocol';
import {
  type MessagePoint,
  participantRenamed,
  presenceUpdated,
  roomCleared,
  roomForgotten,
  roomFrameReceived,
} from '../chat/chatActions';
import { type Keyed, keyOf } from '../../common/keyed';

/**
 * Lines the feed shows between messages, known only to this tab and never sent: "{name}
 * joined", "{name} left", "{from} is now {name}" and "History cleared by {name}". Each is
 * anchored after the newest message this tab held when it happened (its `(epoch, seq)`), so it
 * sits in the order the user saw things, whatever the clocks say. Whether a presence frame makes
 * a line, and where, comes with its action (`feedAt`), from the presence and messages slices
 * that own who is present, the settling window and the messages held.
 */
export type FeedEventKind = 'joined' | 'left' | 'renamed' | 'cleared' | 'room';

export interface FeedEvent {
  id: number;
  kind: FeedEventKind;
  name: string;
  /** A rename's former name. */
  from?: string;
  /** What the creator (`name`) changed, on a `room` line (§6.9). */
  action?: RoomAction;
  /** The participant removed or made creator, on a `room` line. */
  target?: string;
  /** The new `disappear_after`, on a `room` line. */
  after?: number;
  /** The room's epoch `afterSeq` belongs to. */
  epoch: string | null;
  /** The newest message's `seq` when this happened; `null` before any. */
  afterSeq: number | null;
  /** When this tab heard of it (ms since the epoch), for the day dividers; `null`: unknown. */
  time: number | null;
}

export interface RoomFeed {
  events: FeedEvent[];
  nextId: number;
}

/** Lines kept per room; older ones go first (a long session in a busy room stays small). */
export const FEED_EVENTS_MAX = 500;

/** Room id → its feed lines. */
export type FeedState = Keyed<RoomFeed>;

const initialState: FeedState = {};

const BEFORE_ANY: MessagePoint = { epoch: null, seq: null };

function ensureRoom(state: FeedState, room: string): RoomFeed {
  return (state[keyOf(room)] ??= { events: [], nextId: 1 });
}

function add(
  feed: RoomFeed,
  kind: FeedEventKind,
  name: string,
  at: MessagePoint,
  time: number | undefined,
  extra: Partial<Pick<FeedEvent, 'from' | 'action' | 'target' | 'after'>> = {},
) {
  feed.events.push({
    id: feed.nextId++,
    kind,
    name,
    ...extra,
    epoch: at.epoch,
    afterSeq: at.seq,
    time: time ?? null,
  });
  if (feed.events.length > FEED_EVENTS_MAX)
    feed.events.splice(0, feed.events.length - FEED_EVENTS_MAX);
}

export const feedSlice = createSlice({
  name: 'feed',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(presenceUpdated, (state, { payload }) => {
        const at = payload.feedAt;
        if (at === undefined) return;
        const feed = ensureRoom(state, payload.room);
        if (payload.active) {
          // Back before anyone said a word (a reload, a dropped connection): no lines at all.
          const left = feed.events.findIndex(
            (e) =>
              e.kind === 'left' &&
              e.name === payload.sender &&
              e.epoch === at.epoch &&
              e.afterSeq === at.seq,
          );
          if (left !== -1) {
            feed.events.splice(left, 1);
            return;
          }
          add(feed, 'joined', payload.sender, at, payload.time);
        } else {
          add(feed, 'left', payload.sender, at, payload.time);
        }
      })
      .addCase(participantRenamed, (state, { payload }) => {
        if (payload.feedAt === undefined) return;
        const feed = ensureRoom(state, payload.room);
        add(feed, 'renamed', payload.to, payload.feedAt, payload.time, { from: payload.from });
      })
      .addCase(roomFrameReceived, (state, { payload }) => {
        const { event } = payload;
        if (event === undefined) return;
        const extra: Parameters<typeof add>[5] = { action: event.action };
        if (event.name !== undefined) extra.target = event.name;
        if (event.after !== undefined) extra.after = event.after;
        add(ensureRoom(state, payload.room), 'room', event.by, payload.feedAt, payload.time, extra);
      })
      .addCase(roomForgotten, (state, { payload }) => {
        delete state[keyOf(payload.room)];
      })
      .addCase(roomCleared, (state, { payload }) => {
        // The server's frame names who cleared; an own clear shows when that frame comes back.
        if (payload.sender === undefined) return;
        const feed = ensureRoom(state, payload.room);
        feed.events = [];
        add(feed, 'cleared', payload.sender, payload.feedAt ?? BEFORE_ANY, payload.time);
      });
  },
});

const NO_EVENTS: FeedEvent[] = [];

/** The room's feed lines, in the order they happened. */
export const selectFeedEvents = (state: { feed: FeedState }, room: string) =>
  state.feed[keyOf(room)]?.events ?? NO_EVENTS;
