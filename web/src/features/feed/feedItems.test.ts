import type { Message } from '../messages/messagesSlice';
import { buildFeed, dayLabel, type FeedInput, listNames } from './feedItems';
import type { FeedEvent } from './feedSlice';

const NOW = new Date(2026, 5, 15, 12, 0).getTime();
const MINUTE = 60;
const noon = NOW / 1000;

function message(seq: number | null, sender: string, timestamp = noon): Message {
  return {
    key: seq === null ? `c${sender}${timestamp}` : `s${seq}`,
    id: sender === 'Alice' ? 0 : sender,
    message: `${sender} ${seq}`,
    senderName: sender,
    timestamp,
    seq,
    clientId: null,
    status: seq === null ? 'pending' : 'sent',
    source: seq === null ? 'local' : 'remote',
  };
}

let nextId = 1;
function event(
  kind: FeedEvent['kind'],
  name: string,
  afterSeq: number | null,
  epoch = 'e1',
  time: number | null = null,
): FeedEvent {
  return { id: nextId++, kind, name, afterSeq, epoch, time };
}

function feed(input: Partial<FeedInput>) {
  return buildFeed({
    messages: [],
    events: [],
    epoch: 'e1',
    unreadAfter: null,
    now: NOW,
    ...input,
  });
}

/** A compact picture of the rows. */
function shape(input: Partial<FeedInput>): string[] {
  return feed(input).map((item) => {
    switch (item.kind) {
      case 'message':
        return `${item.continued ? '+' : ''}${item.message.message}`;
      case 'day':
        return `[${item.label}]`;
      case 'unread':
        return '[new]';
      case 'presence':
        return item.text;
      case 'renamed':
        return `${item.from} is now ${item.name}`;
      case 'cleared':
        return `cleared by ${item.name}`;
      case 'room':
        return `{${item.text}}`;
    }
  });
}

describe('listNames', () => {
  it('names up to three, then counts the others', () => {
    expect(listNames(['ana'])).toBe('ana');
    expect(listNames(['ana', 'bo'])).toBe('ana and bo');
    expect(listNames(['ana', 'bo', 'cy'])).toBe('ana, bo and cy');
    expect(listNames(['ana', 'bo', 'cy', 'dee'])).toBe('ana, bo, cy and 1 other');
    expect(listNames(['ana', 'bo', 'cy', 'dee', 'eve'])).toBe('ana, bo, cy and 2 others');
  });
});

describe('dayLabel', () => {
  it('says Today, Yesterday, or the date (with the year when it is another)', () => {
    expect(dayLabel(new Date(2026, 5, 15, 0, 1).getTime(), NOW)).toBe('Today');
    expect(dayLabel(new Date(2026, 5, 14, 23, 59).getTime(), NOW)).toBe('Yesterday');
    const older = new Date(2026, 5, 10, 9).getTime();
    expect(dayLabel(older, NOW)).toBe(
      new Intl.DateTimeFormat(undefined, { weekday: 'long', month: 'long', day: 'numeric' }).format(
        older,
      ),
    );
    expect(dayLabel(new Date(2025, 11, 31).getTime(), NOW)).toContain('2025');
  });
});

describe('buildFeed', () => {
  it('puts each line after the message it followed, whatever the clocks say', () => {
    expect(
      shape({
        messages: [message(1, 'Bob'), message(2, 'Cy', noon + 10 * MINUTE), message(null, 'Alice')],
        events: [event('joined', 'Cy', 1), event('left', 'Bob', 2)],
      }),
    ).toEqual(['[Today]', 'Bob 1', 'Cy joined', 'Cy 2', 'Bob left', 'Alice null']);
  });

  it('puts a line under the day it happened, and the messages after it under theirs', () => {
    expect(
      shape({
        messages: [message(1, 'Bob', noon - 24 * 60 * MINUTE), message(2, 'Bob')],
        events: [event('joined', 'Cy', 1, 'e1', NOW - 60_000)],
      }),
    ).toEqual(['[Yesterday]', 'Bob 1', '[Today]', 'Cy joined', 'Bob 2']);
    expect(shape({ events: [event('joined', 'Cy', null, 'e1', NOW)] })).toEqual([
      '[Today]',
      'Cy joined',
    ]);
  });

  it('never reopens an earlier day when a line’s clock is behind the messages', () => {
    const items = feed({
      messages: [message(1, 'Bob', noon - 24 * 60 * MINUTE), message(2, 'Bob'), message(3, 'Bob')],
      events: [event('joined', 'Cy', 2, 'e1', NOW - 24 * 3600 * 1000)],
    });
    expect(items.flatMap((item) => (item.kind === 'day' ? [item.label] : []))).toEqual([
      'Yesterday',
      'Today',
    ]);
    expect(new Set(items.map((item) => item.key)).size).toBe(items.length);
  });

  it('puts lines from an older epoch before the messages of the new one', () => {
    expect(
      shape({
        messages: [message(1, 'Bob')],
        events: [event('joined', 'Cy', 40, 'old')],
      }),
    ).toEqual(['Cy joined', '[Today]', 'Bob 1']);
  });

  it('groups a sender’s messages within 5 minutes, and breaks groups at lines and days', () => {
    expect(
      shape({
        messages: [
          message(1, 'Bob', noon - 24 * 60 * MINUTE),
          message(2, 'Bob', noon - 1),
          message(3, 'Bob', noon + 4 * MINUTE),
          message(4, 'Bob', noon + 10 * MINUTE),
          message(5, 'Bob', noon + 11 * MINUTE),
          message(6, 'Alice', noon + 12 * MINUTE),
          message(7, 'Alice', noon + 13 * MINUTE),
        ],
        events: [event('joined', 'Cy', 4)],
      }),
    ).toEqual([
      '[Yesterday]',
      'Bob 1',
      '[Today]',
      'Bob 2',
      '+Bob 3',
      'Bob 4',
      'Cy joined',
      'Bob 5',
      'Alice 6',
      '+Alice 7',
    ]);
  });

  it('puts "New messages" before the first message from others after the point seen', () => {
    expect(
      shape({
        messages: [message(1, 'Bob'), message(2, 'Alice'), message(3, 'Bob')],
        unreadAfter: { epoch: 'e1', seq: 1 },
      }),
    ).toEqual(['[Today]', 'Bob 1', 'Alice 2', '[new]', 'Bob 3']);
    expect(
      shape({ messages: [message(5, 'Bob')], unreadAfter: { epoch: 'other', seq: 1 } }),
    ).toEqual(['[Today]', 'Bob 5']);
  });

  it('collapses a run of more than 3 joins and leaves, and keeps shorter runs apart', () => {
    expect(
      shape({
        events: ['ana', 'bo', 'cy'].map((name) => event('joined', name, null)),
      }),
    ).toEqual(['ana joined', 'bo joined', 'cy joined']);
    expect(
      shape({
        events: [
          event('joined', 'ana', null),
          event('joined', 'bo', null),
          event('left', 'cy', null),
          event('joined', 'dee', null),
          event('joined', 'eve', null),
          event('cleared', 'Bob', null),
          { ...event('renamed', 'Bobby', null), from: 'Bob' },
          event('left', 'fay', null),
        ],
      }),
    ).toEqual([
      'ana, bo, dee and 1 other joined; cy left',
      'cleared by Bob',
      'Bob is now Bobby',
      'fay left',
    ]);
  });
});
