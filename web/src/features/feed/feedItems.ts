import { isSameUserName } from '@taco/protocol';
import { isOwn, type Message } from '../messages/messagesSlice';
import { durationText } from '../roomSettings/durations';
import type { FeedEvent } from './feedSlice';

/** Messages from one sender closer together than this share one name and time. */
export const GROUP_GAP_SECONDS = 5 * 60;
/** A run of more join/leave lines than this shows as one line. */
export const PRESENCE_RUN_MAX = 3;
/** How many names a collapsed line spells out. */
const NAMES_SHOWN = 3;

/** Where the user left off in a room: the newest message seen, in its epoch. */
export interface SeenPoint {
  epoch: string;
  seq: number;
}

/** One row of the feed, in order. */
export type FeedItem =
  | {
      kind: 'message';
      key: string;
      message: Message;
      own: boolean;
      /** Same sender as the row above, within a few minutes: no name and time of its own. */
      continued: boolean;
    }
  | { kind: 'day'; key: string; label: string }
  | { kind: 'unread'; key: string }
  | { kind: 'presence'; key: string; text: string }
  | { kind: 'renamed'; key: string; from: string; name: string }
  | { kind: 'cleared'; key: string; name: string }
  | { kind: 'room'; key: string; text: string };

/** The feed line of a room change (§6.9): "Ana locked the room", "Ana removed Bob"... */
export function roomEventText(event: Pick<FeedEvent, 'name' | 'action' | 'target' | 'after'>) {
  const by = event.name;
  switch (event.action) {
    case 'lock':
      return `${by} locked the room`;
    case 'unlock':
      return `${by} unlocked the room`;
    case 'remove':
      return `${by} removed ${event.target ?? 'someone'}`;
    case 'hand_over':
      return `${by} made ${event.target ?? 'someone'} the room's creator`;
    default:
      return event.after === undefined || event.after === 0
        ? `${by} turned off disappearing messages`
        : `${by} set messages to disappear after ${durationText(event.after)}`;
  }
}

export interface FeedInput {
  messages: readonly Message[];
  events: readonly FeedEvent[];
  /** The epoch the stored messages' `seq`s belong to. */
  epoch: string | null;
  /** The "New messages" line goes before the first message from others after this. */
  unreadAfter: SeenPoint | null;
  /** Milliseconds since the epoch: what "Today" is. */
  now: number;
}

const dateFormat = new Intl.DateTimeFormat(undefined, {
  weekday: 'long',
  month: 'long',
  day: 'numeric',
});
const dateYearFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full' });

function startOfDay(ms: number): number {
  const day = new Date(ms);
  day.setHours(0, 0, 0, 0);
  return day.getTime();
}

/** "Today", "Yesterday", or the date in the user's locale (with the year if not this one). */
export function dayLabel(ms: number, now: number): string {
  const day = startOfDay(ms);
  const today = startOfDay(now);
  if (day === today) return 'Today';
  const yesterday = new Date(today);
  yesterday.setDate(yesterday.getDate() - 1);
  if (day === yesterday.getTime()) return 'Yesterday';
  const date = new Date(ms);
  return date.getFullYear() === new Date(now).getFullYear()
    ? dateFormat.format(date)
    : dateYearFormat.format(date);
}

/** "ana", "ana and bo", "ana, bo and cy", "ana, bo, cy and 2 others". */
export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  if (names.length <= NAMES_SHOWN) {
    return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  }
  const others = names.length - NAMES_SHOWN;
  return `${names.slice(0, NAMES_SHOWN).join(', ')} and ${others} ${others === 1 ? 'other' : 'others'}`;
}

/** One line for a run of joins and leaves. */
function presenceText(run: readonly FeedEvent[]): string {
  const joined = run.filter((e) => e.kind === 'joined').map((e) => e.name);
  const left = run.filter((e) => e.kind === 'left').map((e) => e.name);
  return [
    joined.length > 0 ? `${listNames(joined)} joined` : '',
    left.length > 0 ? `${listNames(left)} left` : '',
  ]
    .filter((part) => part !== '')
    .join('; ');
}

type Row = { kind: 'message'; message: Message } | { kind: 'events'; events: FeedEvent[] };

/** Messages and lines interleaved: each line after the message it was anchored to. */
function interleave(input: FeedInput): Row[] {
  const rows: Row[] = [];
  const pending = [...input.events];
  // A line from an older epoch predates every message held now.
  const anchor = (e: FeedEvent) => (e.epoch === input.epoch ? (e.afterSeq ?? -1) : -1);
  const takeEvents = (before: number) => {
    const taken: FeedEvent[] = [];
    while (pending.length > 0 && anchor(pending[0]!) < before) taken.push(pending.shift()!);
    if (taken.length > 0) rows.push({ kind: 'events', events: taken });
  };
  for (const message of input.messages) {
    takeEvents(message.seq ?? Infinity);
    rows.push({ kind: 'message', message });
  }
  takeEvents(Infinity);
  return rows;
}

/** The feed's rows: messages grouped by sender, day and unread dividers, and feed lines. */
export function buildFeed(input: FeedInput): FeedItem[] {
  const items: FeedItem[] = [];
  let previous: { message: Message; own: boolean } | null = null;
  let day: number | null = null;
  let unreadShown = false;
  const { unreadAfter } = input;
  const divide = (ms: number) => {
    const start = startOfDay(ms);
    // Days only move forward: a line stamped by a skewed local clock does not reopen an earlier one.
    if (day !== null && start <= day) return;
    day = start;
    previous = null;
    items.push({ kind: 'day', key: `d${start}`, label: dayLabel(ms, input.now) });
  };
  for (const row of interleave(input)) {
    if (row.kind === 'events') {
      previous = null;
      const time = row.events[0]!.time;
      if (time !== null) divide(time);
      let run: FeedEvent[] = [];
      const endRun = () => {
        if (run.length > PRESENCE_RUN_MAX) {
          items.push({ kind: 'presence', key: `p${run[0]!.id}`, text: presenceText(run) });
        } else {
          for (const e of run)
            items.push({ kind: 'presence', key: `p${e.id}`, text: presenceText([e]) });
        }
        run = [];
      };
      for (const event of row.events) {
        if (event.kind === 'room') {
          endRun();
          items.push({ kind: 'room', key: `e${event.id}`, text: roomEventText(event) });
        } else if (event.kind === 'cleared') {
          endRun();
          items.push({ kind: 'cleared', key: `c${event.id}`, name: event.name });
        } else if (event.kind === 'renamed') {
          endRun();
          items.push({
            kind: 'renamed',
            key: `r${event.id}`,
            from: event.from ?? '',
            name: event.name,
          });
        } else {
          run.push(event);
        }
      }
      endRun();
      continue;
    }
    const { message } = row;
    const own = isOwn(message);
    divide(message.timestamp * 1000);
    if (
      !unreadShown &&
      !own &&
      unreadAfter !== null &&
      message.seq !== null &&
      input.epoch === unreadAfter.epoch &&
      message.seq > unreadAfter.seq
    ) {
      unreadShown = true;
      previous = null;
      items.push({ kind: 'unread', key: 'unread' });
    }
    const continued =
      previous !== null &&
      previous.own === own &&
      isSameUserName(previous.message.senderName, message.senderName) &&
      message.timestamp - previous.message.timestamp <= GROUP_GAP_SECONDS;
    items.push({ kind: 'message', key: message.key, message, own, continued });
    previous = { message, own };
  }
  return items;
}
