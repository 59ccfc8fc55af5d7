import { type ClientFrame, FrameType, TYPING_IDLE_MS, TYPING_THROTTLE_MS } from '@taco/protocol';
import {
  type MessageBucket,
  Outbox,
  type OutboxClock,
  type OutgoingMessage,
  RATE_LIMITED_TRIES,
  REFILL_MARGIN_MS,
  SLACK_TOKENS,
  TypingSignal,
} from './outbox';

/** A connection that records frames, open unless told otherwise. */
function connection() {
  const sent: ClientFrame[] = [];
  const state = { open: true };
  const send = (frame: ClientFrame) => {
    if (state.open) sent.push(frame);
    return state.open;
  };
  return { sent, state, send };
}

/** Jest's fake timers as the clock. */
const clock: OutboxClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (id) => clearTimeout(id),
};

beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

const message = (clientId: string, body = clientId) => ({
  type: FrameType.Message,
  body,
  client_id: clientId,
});

/** An outbox whose pending list the test edits, like the store's. */
function outboxOf(bucket?: MessageBucket) {
  const link = connection();
  const pending: OutgoingMessage[] = [];
  const outbox = new Outbox(link.send, () => pending, clock, bucket);
  const add = (...ids: string[]) => {
    for (const id of ids) pending.push({ clientId: id, message: id });
  };
  /** The server stored it: it is no longer pending. */
  const store = (id: string) => {
    pending.splice(
      pending.findIndex((m) => m.clientId === id),
      1,
    );
    outbox.settled(id);
  };
  return { ...link, outbox, pending, add, store };
}

describe('Outbox', () => {
  it('holds messages until history caught up, then sends each once per connection', () => {
    const { sent, outbox, add } = outboxOf();
    add('c1');
    outbox.send();
    expect(sent).toEqual([]);
    outbox.flush();
    add('c2');
    outbox.send();
    outbox.flush();
    expect(sent).toEqual([message('c1'), message('c2')]);
  });

  it('sends again on a new connection, once its history caught up', () => {
    const { sent, outbox, add } = outboxOf();
    add('c1');
    outbox.flush();
    outbox.reset();
    outbox.send();
    outbox.flush();
    expect(sent).toEqual([message('c1'), message('c1')]);
  });

  it('does not count a message as sent while the connection is closed', () => {
    const { sent, state, outbox, add } = outboxOf();
    outbox.flush();
    state.open = false;
    add('c1');
    outbox.send();
    state.open = true;
    outbox.flush();
    expect(sent).toEqual([message('c1')]);
  });

  it('sends a retried message again', () => {
    const { sent, outbox, add } = outboxOf();
    outbox.flush();
    add('c1');
    outbox.send();
    outbox.resend('c1');
    expect(sent).toEqual([message('c1'), message('c1')]);
  });

  it('paces a burst by the server bucket, with some slack, in the order typed', () => {
    const { sent, outbox, add } = outboxOf({ burst: 4, perSecond: 2 });
    const ids = () => sent.map((f) => (f as { client_id: string }).client_id);
    outbox.flush();
    add('a', 'b', 'c', 'd', 'e');
    outbox.send();
    // The last token stays in hand until SLACK_TOKENS more have come.
    expect(ids()).toEqual(['a', 'b', 'c']);
    jest.advanceTimersByTime(Math.ceil((SLACK_TOKENS * 1000) / 2) + REFILL_MARGIN_MS + 1);
    expect(ids()).toEqual(['a', 'b', 'c', 'd']);
    jest.advanceTimersByTime(500);
    expect(ids()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('keeps the bucket across a reconnect, as the server does for the same name', () => {
    const { sent, outbox, add, store } = outboxOf({ burst: 4, perSecond: 1 });
    outbox.flush();
    add('a', 'b');
    outbox.send();
    store('a');
    store('b');
    outbox.reset();
    outbox.flush();
    add('c', 'd');
    outbox.send();
    // Two tokens were left, one of them kept as slack: c goes now, d once the bucket refilled.
    expect(sent).toEqual([message('a'), message('b'), message('c')]);
    jest.advanceTimersByTime(1000 + REFILL_MARGIN_MS + 300);
    expect(sent).toEqual([message('a'), message('b'), message('c'), message('d')]);
  });

  it('counts clears and renames against the bucket', () => {
    const { sent, outbox, add } = outboxOf({ burst: 3, perSecond: 1 });
    outbox.flush();
    outbox.spend();
    add('a', 'b');
    outbox.send();
    expect(sent).toEqual([message('a')]);
  });

  it('sends a rate-limited message again, ahead of later ones, once the bucket refilled', () => {
    const { sent, outbox, add, store } = outboxOf({ burst: 10, perSecond: 2 });
    outbox.flush();
    add('a', 'b', 'c');
    outbox.send();
    store('a');
    // The server's bucket was emptier than this mirror thought: b and c were refused.
    expect(outbox.refused('b')).toBe(true);
    expect(outbox.refused('c')).toBe(true);
    expect(sent).toHaveLength(3);
    jest.advanceTimersByTime(600);
    expect(sent).toHaveLength(3);
    jest.advanceTimersByTime(2000);
    expect(sent.slice(3)).toEqual([message('b'), message('c')]);
  });

  it('gives up a message refused RATE_LIMITED_TRIES times, and goes on with the next', () => {
    const { sent, outbox, add } = outboxOf({ burst: 2, perSecond: 1 });
    outbox.flush();
    add('a', 'b');
    outbox.send();
    for (let i = 1; i < RATE_LIMITED_TRIES; i++) {
      expect(outbox.refused('a')).toBe(true);
      jest.advanceTimersByTime(2000);
    }
    expect(sent.filter((f) => (f as { client_id: string }).client_id === 'a')).toHaveLength(
      RATE_LIMITED_TRIES,
    );
    // The store marks it failed, so it is no longer pending.
    expect(outbox.refused('a')).toBe(false);
  });
});

describe('TypingSignal', () => {
  const typing = (value: boolean) => ({ type: FrameType.Typing, typing: value });

  it('sends typing=true on the leading edge, at most once per throttle interval', () => {
    const { sent, send } = connection();
    const signal = new TypingSignal(send, clock);
    signal.edited(false);
    jest.advanceTimersByTime(TYPING_THROTTLE_MS - 1);
    signal.edited(false);
    jest.advanceTimersByTime(1);
    signal.edited(false);
    expect(sent).toEqual([typing(true), typing(true)]);
  });

  it('sends typing=false only while others may see the user typing', () => {
    const { sent, send } = connection();
    const signal = new TypingSignal(send, clock);
    signal.edited(true);
    signal.stopped();
    signal.edited(false);
    signal.edited(true);
    signal.stopped();
    expect(sent).toEqual([typing(true), typing(false)]);
  });

  it('sends typing=false when the user pauses with text in the box, not while typing', () => {
    const { sent, send } = connection();
    const signal = new TypingSignal(send, clock);
    signal.edited(false);
    jest.advanceTimersByTime(TYPING_IDLE_MS - 1);
    signal.edited(false);
    jest.advanceTimersByTime(TYPING_IDLE_MS - 1);
    expect(sent).toEqual([typing(true), typing(true)]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([typing(true), typing(true), typing(false)]);
    jest.advanceTimersByTime(TYPING_IDLE_MS * 2);
    expect(sent).toHaveLength(3);
  });

  it('forgets what others saw on a new connection', () => {
    const { sent, send } = connection();
    const signal = new TypingSignal(send, clock);
    signal.edited(false);
    signal.reset();
    signal.stopped();
    jest.advanceTimersByTime(TYPING_IDLE_MS);
    expect(sent).toEqual([typing(true)]);
  });

  it('keeps showing typing when typing=false could not be sent', () => {
    const { sent, state, send } = connection();
    const signal = new TypingSignal(send, clock);
    signal.edited(false);
    state.open = false;
    signal.stopped();
    state.open = true;
    signal.stopped();
    expect(sent).toEqual([typing(true), typing(false)]);
  });
});
