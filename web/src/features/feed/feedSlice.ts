import { createSlice } from '@reduxjs/toolkit';
import { userNameKey } from '@taco/protocol';
import {
  connectionOpened,
  historyReceived,
  messageReceived,
  participantRenamed,
  participantRenamedAway,
  presenceUpdated,
  roomCleared,
  roomForgotten,
} from '../chat/chatActions';
import { type Keyed, keyOf } from '../../common/keyed';

/**
 * Lines the feed shows between messages, known only to this tab and never sent: "{name}
 * joined", "{name} left", "{from} is now {name}" and "History cleared by {name}". Each is anchored after the newest
 * message this tab held when it happened (its `(epoch, seq)`), so it sits in the order the
 * user saw things, whatever the clocks say.
 */
export type FeedEventKind = 'joined' | 'left' | 'renamed' | 'cleared';

export interface FeedEvent {
  id: number;
  kind: FeedEventKind;
  name: string;
  /** A rename's former name. */
  from?: string;
  /** The room's epoch `afterSeq` belongs to. */
  epoch: string | null;
  /** The newest message's `seq` when this happened; `null` before any. */
  afterSeq: number | null;
  /** When this tab heard of it (ms since the epoch), for the day dividers; `null`: unknown. */
  time: number | null;
}

export interface RoomFeed {
  events: FeedEvent[];
  /** Who is present (by name key), as far as join and leave lines go. */
  present: Keyed<boolean>;
  /**
   * From a socket opening until its first history answer: the presence frames are the roster
   * the server sends every (re)joining connection, not people joining.
   */
  settling: boolean;
  epoch: string | null;
  lastSeq: number | null;
  nextId: number;
}

/** Lines kept per room; older ones go first (a long session in a busy room stays small). */
export const FEED_EVENTS_MAX = 500;

/** Room id → its feed lines. */
export type FeedState = Keyed<RoomFeed>;

const initialState: FeedState = {};

/** Where `present` keeps a name: by `userNameKey`, so "Ann" and "ann" are one person. */
const presentKey = (name: string) => keyOf(userNameKey(name));

function ensureRoom(state: FeedState, room: string): RoomFeed {
  return (state[keyOf(room)] ??= {
    events: [],
    present: {},
    settling: true,
    epoch: null,
    lastSeq: null,
    nextId: 1,
  });
}

/** Follows the newest message's `(epoch, seq)`. */
function advance(feed: RoomFeed, epoch: string | undefined, seqs: readonly number[]) {
  if (epoch !== undefined && epoch !== feed.epoch) {
    feed.epoch = epoch;
    feed.lastSeq = null;
  }
  for (const seq of seqs) if (feed.lastSeq === null || seq > feed.lastSeq) feed.lastSeq = seq;
}

function add(
  feed: RoomFeed,
  kind: FeedEventKind,
  name: string,
  time: number | undefined,
  from?: string,
) {
  feed.events.push({
    id: feed.nextId++,
    kind,
    name,
    ...(from === undefined ? {} : { from }),
    epoch: feed.epoch,
    afterSeq: feed.lastSeq,
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
      .addCase(connectionOpened, (state, { payload }) => {
        const feed = ensureRoom(state, payload.room);
        feed.settling = true;
        feed.present = {};
      })
      .addCase(historyReceived, (state, { payload }) => {
        const feed = ensureRoom(state, payload.room);
        feed.settling = false;
        advance(
          feed,
          payload.epoch,
          payload.messages.map((m) => m.seq),
        );
      })
      .addCase(messageReceived, (state, { payload }) => {
        advance(ensureRoom(state, payload.room), payload.epoch, [payload.message.seq]);
      })
      .addCase(presenceUpdated, (state, { payload }) => {
        const feed = ensureRoom(state, payload.room);
        const key = presentKey(payload.sender);
        const was = feed.present[key] === true;
        feed.present[key] = payload.active;
        if (feed.settling || was === payload.active) return;
        if (payload.active) {
          // Back before anyone said a word (a reload, a dropped connection): no lines at all.
          const left = feed.events.findIndex(
            (e) =>
              e.kind === 'left' &&
              presentKey(e.name) === key &&
              e.epoch === feed.epoch &&
              e.afterSeq === feed.lastSeq,
          );
          if (left !== -1) {
            feed.events.splice(left, 1);
            return;
          }
          add(feed, 'joined', payload.sender, payload.time);
        } else {
          add(feed, 'left', payload.sender, payload.time);
        }
      })
      .addCase(participantRenamed, (state, { payload }) => {
        const feed = ensureRoom(state, payload.room);
        const key = presentKey(payload.to);
        // Into a name already here: another tab of this browser renamed first, and said so.
        if (feed.present[key] === true) return;
        feed.present[key] = true;
        add(feed, 'renamed', payload.to, payload.time, payload.from);
      })
      .addCase(participantRenamedAway, (state, { payload }) => {
        // The old name's last connection moved to the new name: no "left" line for it.
        ensureRoom(state, payload.room).present[presentKey(payload.name)] = false;
      })
      .addCase(roomForgotten, (state, { payload }) => {
        delete state[keyOf(payload.room)];
      })
      .addCase(roomCleared, (state, { payload }) => {
        // The server's frame names who cleared; an own clear shows when that frame comes back.
        if (payload.sender === undefined) return;
        const feed = ensureRoom(state, payload.room);
        feed.events = [];
        add(feed, 'cleared', payload.sender, payload.time);
      });
  },
});

const NO_EVENTS: FeedEvent[] = [];

/** The room's feed lines, in the order they happened. */
export const selectFeedEvents = (state: { feed: FeedState }, room: string) =>
  state.feed[keyOf(room)]?.events ?? NO_EVENTS;
