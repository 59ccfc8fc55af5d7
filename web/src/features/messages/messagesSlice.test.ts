import type { ChatMessage } from '@taco/protocol';
import { makeStore } from '../../app/store';
import {
  historyReceived,
  errorFrameReceived,
  messageReceived,
  messageRetried,
  messageSent,
  roomCleared,
  roomCreated,
  roomEntered,
} from '../chat/chatActions';
import {
  isOwn,
  isOwnMessage,
  selectEarlierMissing,
  selectMessages,
  selectPendingMessages,
  selectResumePoint,
  selectRoomKnown,
  selectUnsentMessage,
} from './messagesSlice';

const ROOM = 'teal-otter';
/** The error frame answering a message the server did not store. */
const notStored = (room: string, clientId: string) =>
  errorFrameReceived({ room, code: 'unavailable', message: 'Not stored', clientId });
/** A history answer to Alice: the first (after null) unless `after` is given. */
function history(
  messages: ChatMessage[],
  { after = null, complete = true, epoch }: HistoryOptions = {},
) {
  return historyReceived({ room: ROOM, messages, complete, after, me: 'Alice', epoch });
}

interface HistoryOptions {
  after?: number | null;
  complete?: boolean;
  epoch?: string;
}

const msg = (seq: number, sender = 'Bob', body = `m${seq}`) => ({
  sender,
  body,
  timestamp: 1_700_000_000 + seq,
  seq,
});

function setup() {
  const store = makeStore();
  store.dispatch(roomCreated({ room: ROOM }));
  return store;
}

describe('messages slice (spec §4 actions on chat state)', () => {
  it('create room adds an empty room if absent, and keeps an existing one', () => {
    const store = setup();
    expect(selectRoomKnown(store.getState(), ROOM)).toBe(true);
    expect(selectMessages(store.getState(), ROOM)).toEqual([]);
    expect(selectResumePoint(store.getState(), ROOM)).toEqual({ after: null, epoch: null });
    expect(selectEarlierMissing(store.getState(), ROOM)).toBe(false);
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, me: 'Alice' }));
    store.dispatch(roomCreated({ room: ROOM }));
    expect(selectMessages(store.getState(), ROOM)).toHaveLength(1);
  });

  it('entering a room this device did not know adds it', () => {
    const store = setup();
    store.dispatch(roomEntered({ room: 'red-fox' }));
    expect(selectRoomKnown(store.getState(), 'red-fox')).toBe(true);
  });

  it('new message appends, marks own messages with id 0 and others with the sender name', () => {
    const store = setup();
    store.dispatch(history([]));
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, me: 'Alice' }));
    store.dispatch(
      messageReceived({ room: ROOM, message: msg(2, 'Alice'), clientId: null, me: 'Alice' }),
    );
    const messages = selectMessages(store.getState(), ROOM);
    expect(messages.map((m) => [m.id, m.message, m.senderName, m.timestamp])).toEqual([
      ['Bob', 'm1', 'Bob', 1_700_000_001],
      [0, 'm2', 'Alice', 1_700_000_002],
    ]);
    expect(messages.map(isOwn)).toEqual([false, true]);
    expect(selectResumePoint(store.getState(), ROOM).after).toBe(2);
  });

  it('ignores a message it already has (same seq)', () => {
    const store = setup();
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, me: 'Alice' }));
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, me: 'Alice' }));
    expect(selectMessages(store.getState(), ROOM)).toHaveLength(1);
  });

  it('adds an own message locally as pending and replaces it with the echo by client_id', () => {
    const store = setup();
    store.dispatch(
      messageSent({
        room: ROOM,
        clientId: 'c1',
        body: 'hello',
        senderName: 'Alice',
        timestamp: 1_700_000_005,
      }),
    );
    let [pending] = selectMessages(store.getState(), ROOM);
    expect(pending).toMatchObject({ id: 0, status: 'pending', source: 'local', seq: null });
    store.dispatch(messageReceived({ room: ROOM, message: msg(7), clientId: null, me: 'Alice' }));
    store.dispatch(
      messageReceived({
        room: ROOM,
        message: msg(8, 'Alice', 'hello'),
        clientId: 'c1',
        me: 'Alice',
      }),
    );
    const messages = selectMessages(store.getState(), ROOM);
    expect(messages.map((m) => [m.seq, m.message, m.status])).toEqual([
      [7, 'm7', 'sent'],
      [8, 'hello', 'sent'],
    ]);
    [pending] = messages;
    expect(pending?.status).toBe('sent');
  });

  it('keeps pending messages after confirmed ones', () => {
    const store = setup();
    store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'mine', senderName: 'A', timestamp: 1 }),
    );
    store.dispatch(messageReceived({ room: ROOM, message: msg(3), clientId: null, me: 'Alice' }));
    expect(selectMessages(store.getState(), ROOM).map((m) => m.message)).toEqual(['m3', 'mine']);
  });

  it('marks a message failed and moves it to the end as pending on retry', () => {
    const store = setup();
    store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'x', senderName: 'A', timestamp: 1 }),
    );
    store.dispatch(
      messageSent({ room: ROOM, clientId: 'c2', body: 'y', senderName: 'A', timestamp: 2 }),
    );
    store.dispatch(notStored(ROOM, 'c1'));
    expect(selectMessages(store.getState(), ROOM)[0]?.status).toBe('failed');
    store.dispatch(messageRetried({ room: ROOM, clientId: 'c1' }));
    expect(selectMessages(store.getState(), ROOM).map((m) => [m.message, m.status])).toEqual([
      ['y', 'pending'],
      ['x', 'pending'],
    ]);
  });

  it('clear room empties the message list', () => {
    const store = setup();
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, me: 'Alice' }));
    store.dispatch(roomCleared({ room: ROOM, source: 'remote' }));
    expect(selectMessages(store.getState(), ROOM)).toEqual([]);
  });

  describe('history', () => {
    it('the first batch replaces the list and tells own messages by name', () => {
      const store = setup();
      store.dispatch(history([msg(1), msg(2, 'alice ')]));
      const messages = selectMessages(store.getState(), ROOM);
      expect(messages.map((m) => m.id)).toEqual(['Bob', 0]);
      expect(selectResumePoint(store.getState(), ROOM).after).toBe(2);
    });

    it('a resume appends only what is new', () => {
      const store = setup();
      store.dispatch(history([msg(1), msg(2)]));
      store.dispatch(history([msg(2), msg(3)], { after: 2 }));
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2, 3]);
      expect(selectEarlierMissing(store.getState(), ROOM)).toBe(false);
    });

    it('complete:false replaces the list and flags that earlier messages are gone', () => {
      const store = setup();
      store.dispatch(history([msg(1), msg(2)]));
      store.dispatch(history([msg(9)], { after: 2, complete: false }));
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([9]);
      expect(selectEarlierMissing(store.getState(), ROOM)).toBe(true);
    });

    it('keeps live messages that arrived before the answer to the first request', () => {
      const store = setup();
      store.dispatch(messageReceived({ room: ROOM, message: msg(5), clientId: null, me: 'Alice' }));
      // What came before it is not known yet: a drop now would resume from the latest.
      expect(selectResumePoint(store.getState(), ROOM).after).toBeNull();
      store.dispatch(history([msg(3), msg(4)]));
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([3, 4, 5]);
      expect(selectResumePoint(store.getState(), ROOM).after).toBe(5);
    });

    it('puts a late resume answer before newer live messages', () => {
      const store = setup();
      store.dispatch(history([msg(1), msg(2)]));
      store.dispatch(messageReceived({ room: ROOM, message: msg(5), clientId: null, me: 'Alice' }));
      store.dispatch(history([msg(3), msg(4), msg(5)], { after: 2 }));
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    it('a replacing answer keeps live messages newer than what it carries', () => {
      const store = setup();
      store.dispatch(history([msg(1), msg(2)]));
      store.dispatch(messageReceived({ room: ROOM, message: msg(9), clientId: null, me: 'Alice' }));
      store.dispatch(history([], { after: 2, complete: false }));
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([9]);
      expect(selectResumePoint(store.getState(), ROOM).after).toBe(9);
    });

    it('reconciles an unconfirmed own message that history shows was stored', () => {
      const store = setup();
      store.dispatch(
        messageSent({ room: ROOM, clientId: 'c1', body: 'hi', senderName: 'Alice', timestamp: 1 }),
      );
      store.dispatch(history([msg(4, 'Alice', 'hi')], { after: 3 }));
      expect(selectMessages(store.getState(), ROOM).map((m) => [m.seq, m.status])).toEqual([
        [4, 'sent'],
      ]);
    });
  });

  describe('resume point', () => {
    const live = (seq: number) =>
      messageReceived({ room: ROOM, message: msg(seq), clientId: null, me: 'Alice' });
    const after = (store: ReturnType<typeof setup>) =>
      selectResumePoint(store.getState(), ROOM).after;

    it('moves only over messages that follow it without a gap', () => {
      const store = setup();
      store.dispatch(history([msg(1), msg(2)]));
      // A live message overtook the resume's answer: 3 to 8 are still to come from history.
      store.dispatch(live(9));
      expect(after(store)).toBe(2);
      store.dispatch(history([msg(3), msg(4), msg(5)], { after: 2 }));
      expect(after(store)).toBe(5);
      store.dispatch(live(6));
      store.dispatch(live(8));
      expect(after(store)).toBe(6);
      store.dispatch(live(7));
      expect(after(store)).toBe(9);
    });

    it('starts at the next live message in an empty room and after a clear', () => {
      const store = setup();
      store.dispatch(history([]));
      expect(after(store)).toBeNull();
      store.dispatch(live(1));
      expect(after(store)).toBe(1);
      store.dispatch(roomCleared({ room: ROOM, source: 'remote', sender: 'Bob' }));
      expect(after(store)).toBeNull();
      store.dispatch(live(2));
      store.dispatch(live(3));
      expect(after(store)).toBe(3);
    });
  });

  describe('epoch', () => {
    const me = 'Alice';

    it("keeps the room's epoch and appends a resume of the same epoch", () => {
      const store = setup();
      store.dispatch(history([msg(1)], { epoch: 'e1' }));
      store.dispatch(history([msg(2)], { after: 1, epoch: 'e1' }));
      expect(selectResumePoint(store.getState(), ROOM)).toEqual({ epoch: 'e1', after: 2 });
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2]);
    });

    it('replaces the list when a resume answers with another epoch', () => {
      const store = setup();
      store.dispatch(history([msg(7), msg(8)], { epoch: 'e1' }));
      store.dispatch(
        messageSent({ room: ROOM, clientId: 'c1', body: 'mine', senderName: me, timestamp: 1 }),
      );
      store.dispatch(history([msg(1)], { after: 8, epoch: 'e2' }));
      expect(selectResumePoint(store.getState(), ROOM)).toEqual({ epoch: 'e2', after: 1 });
      expect(selectEarlierMissing(store.getState(), ROOM)).toBe(true);
      expect(selectMessages(store.getState(), ROOM).map((m) => [m.seq, m.message])).toEqual([
        [1, 'm1'],
        [null, 'mine'],
      ]);
    });

    it('drops the old numbering when a live message carries another epoch', () => {
      const store = setup();
      store.dispatch(history([msg(5)], { epoch: 'e1' }));
      store.dispatch(
        messageReceived({ room: ROOM, message: msg(1), clientId: null, me: 'Alice', epoch: 'e2' }),
      );
      expect(selectResumePoint(store.getState(), ROOM)).toEqual({ epoch: 'e2', after: 1 });
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1]);
    });
  });

  describe('selectors', () => {
    const send = (clientId: string, body = clientId) =>
      messageSent({ room: ROOM, clientId, body, senderName: 'Alice', timestamp: 1 });

    it('lists the pending own messages to send, in order, without the failed ones', () => {
      const store = setup();
      store.dispatch(send('c1'));
      store.dispatch(send('c2'));
      store.dispatch(send('c3'));
      store.dispatch(notStored(ROOM, 'c2'));
      expect(selectPendingMessages(store.getState(), ROOM).map((m) => m.clientId)).toEqual([
        'c1',
        'c3',
      ]);
      expect(selectUnsentMessage(store.getState(), ROOM, 'c2')).toMatchObject({
        message: 'c2',
        status: 'failed',
      });
      expect(selectUnsentMessage(store.getState(), ROOM, 'nope')).toBeUndefined();
    });

    it('gives the same feed while the room did not change, and an empty one for an unknown room', () => {
      const store = setup();
      store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, me: 'Alice' }));
      const feed = selectMessages(store.getState(), ROOM);
      store.dispatch(
        messageReceived({ room: 'red-fox', message: msg(1), clientId: null, me: 'Alice' }),
      );
      expect(selectMessages(store.getState(), ROOM)).toBe(feed);
      expect(selectMessages(store.getState(), 'blue-owl')).toEqual([]);
      expect(selectRoomKnown(store.getState(), 'blue-owl')).toBe(false);
    });
  });

  it('keeps stored messages in seq order whatever order they arrive in', () => {
    const store = setup();
    for (const seq of [3, 1, 2]) {
      store.dispatch(
        messageReceived({ room: ROOM, message: msg(seq), clientId: null, me: 'Alice' }),
      );
    }
    expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2, 3]);
  });

  it('a failure or retry of a message it does not hold changes nothing', () => {
    const store = setup();
    store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'x', senderName: 'A', timestamp: 1 }),
    );
    const before = selectMessages(store.getState(), ROOM);
    store.dispatch(notStored(ROOM, 'c9'));
    store.dispatch(
      errorFrameReceived({ room: ROOM, code: 'rate_limited', message: 'Slow', clientId: null }),
    );
    store.dispatch(messageRetried({ room: ROOM, clientId: 'c1' }));
    store.dispatch(messageRetried({ room: 'red-fox', clientId: 'c1' }));
    expect(selectMessages(store.getState(), ROOM)).toEqual(before);
  });

  it('clear room also drops unsent messages, and resumes from the latest, in the same epoch', () => {
    const store = setup();
    store.dispatch(
      messageReceived({ room: ROOM, message: msg(4), clientId: null, me: 'Alice', epoch: 'e1' }),
    );
    store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'x', senderName: 'A', timestamp: 1 }),
    );
    store.dispatch(roomCleared({ room: ROOM, source: 'local' }));
    expect(selectMessages(store.getState(), ROOM)).toEqual([]);
    expect(selectPendingMessages(store.getState(), ROOM)).toEqual([]);
    expect(selectResumePoint(store.getState(), ROOM)).toEqual({ after: null, epoch: 'e1' });
  });
});

describe('isOwnMessage', () => {
  const former = [{ name: 'Ann', epoch: 'e1', upToSeq: 5 }];
  it('is the current name, or a former one up to the rename in its epoch', () => {
    expect(isOwnMessage({ sender: 'annie', seq: 9 }, 'e1', 'Annie', former)).toBe(true);
    expect(isOwnMessage({ sender: 'Ann', seq: 5 }, 'e1', 'Annie', former)).toBe(true);
    expect(isOwnMessage({ sender: 'Ann', seq: 6 }, 'e1', 'Annie', former)).toBe(false);
    expect(isOwnMessage({ sender: 'Ann', seq: 2 }, 'e2', 'Annie', former)).toBe(false);
    expect(isOwnMessage({ sender: 'Bob', seq: 2 }, 'e1', 'Annie', former)).toBe(false);
  });
});
