import { makeStore } from '../../app/store';
import { unauthorized } from '../roomAuth/roomAuthSlice';
import {
  errorFrameReceived,
  historyReceived,
  messageFailed,
  messageReceived,
  messageRetried,
  messageSent,
  noticeDismissed,
  presenceUpdated,
  roomCleared,
  roomCreated,
  roomEntered,
  selectMessages,
  selectParticipants,
  senderNameSet,
  SESSION_EXPIRED_MESSAGE,
  TYPING_STALE_MS,
  typingExpired,
  typingUpdated,
} from './chatSlice';

const ROOM = 'teal-otter';
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

describe('chat slice (spec §4 actions on chat state)', () => {
  it('create room adds an empty room if absent, and keeps an existing one', () => {
    const store = setup();
    expect(store.getState().chat.rooms[ROOM]).toEqual({
      name: ROOM,
      messages: [],
      participants: [],
      lastSeq: null,
      epoch: null,
      earlierMissing: false,
    });
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, own: false }));
    store.dispatch(roomCreated({ room: ROOM }));
    expect(selectMessages(store.getState(), ROOM)).toHaveLength(1);
  });

  it('enter room sets the current room', () => {
    const store = setup();
    store.dispatch(roomEntered({ room: 'red-fox' }));
    expect(store.getState().chat.currentRoom).toBe('red-fox');
    expect(store.getState().chat.rooms['red-fox']).toBeDefined();
  });

  it('set sender name', () => {
    const store = setup();
    store.dispatch(senderNameSet({ name: 'Alice' }));
    expect(store.getState().chat.senderName).toBe('Alice');
  });

  it('new message appends, marks own messages with id 0 and others with the sender name', () => {
    const store = setup();
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, own: false }));
    store.dispatch(
      messageReceived({ room: ROOM, message: msg(2, 'Alice'), clientId: null, own: true }),
    );
    const messages = selectMessages(store.getState(), ROOM);
    expect(messages.map((m) => [m.id, m.message, m.senderName, m.timestamp])).toEqual([
      ['Bob', 'm1', 'Bob', 1_700_000_001],
      [0, 'm2', 'Alice', 1_700_000_002],
    ]);
    expect(store.getState().chat.rooms[ROOM]?.lastSeq).toBe(2);
  });

  it('ignores a message it already has (same seq)', () => {
    const store = setup();
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, own: false }));
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, own: false }));
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
    store.dispatch(messageReceived({ room: ROOM, message: msg(7), clientId: null, own: false }));
    store.dispatch(
      messageReceived({
        room: ROOM,
        message: msg(8, 'Alice', 'hello'),
        clientId: 'c1',
        own: true,
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
    store.dispatch(messageReceived({ room: ROOM, message: msg(3), clientId: null, own: false }));
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
    store.dispatch(messageFailed({ room: ROOM, clientId: 'c1' }));
    expect(selectMessages(store.getState(), ROOM)[0]?.status).toBe('failed');
    store.dispatch(messageRetried({ room: ROOM, clientId: 'c1' }));
    expect(selectMessages(store.getState(), ROOM).map((m) => [m.message, m.status])).toEqual([
      ['y', 'pending'],
      ['x', 'pending'],
    ]);
  });

  it('clear room empties the message list', () => {
    const store = setup();
    store.dispatch(messageReceived({ room: ROOM, message: msg(1), clientId: null, own: false }));
    store.dispatch(roomCleared({ room: ROOM, source: 'remote' }));
    expect(selectMessages(store.getState(), ROOM)).toEqual([]);
  });

  it('presence update sets the active flag and adds an unknown participant with typing false', () => {
    const store = setup();
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: true }));
    expect(selectParticipants(store.getState(), ROOM)).toEqual([
      { name: 'Bob', active: true, typing: false, lastTypingTime: 0 },
    ]);
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: 10 }));
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: false }));
    expect(selectParticipants(store.getState(), ROOM)).toEqual([
      { name: 'Bob', active: false, typing: false, lastTypingTime: 10 },
    ]);
  });

  it('typing update replaces the entry with active true, the typing value and the time', () => {
    const store = setup();
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: false }));
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: 1234 }));
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Cy', typing: true, time: 99 }));
    expect(selectParticipants(store.getState(), ROOM)).toEqual([
      { name: 'Bob', active: true, typing: true, lastTypingTime: 1234 },
      { name: 'Cy', active: true, typing: true, lastTypingTime: 99 },
    ]);
  });

  it('drops typing indicators that were not refreshed in time', () => {
    const store = setup();
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: 1000 }));
    store.dispatch(typingExpired({ room: ROOM, now: 1000 + TYPING_STALE_MS - 1 }));
    expect(selectParticipants(store.getState(), ROOM)[0]?.typing).toBe(true);
    store.dispatch(typingExpired({ room: ROOM, now: 1000 + TYPING_STALE_MS }));
    expect(selectParticipants(store.getState(), ROOM)[0]?.typing).toBe(false);
  });

  describe('history', () => {
    it('the first batch replaces the list and tells own messages by name', () => {
      const store = setup();
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(1), msg(2, 'alice ')],
          complete: true,
          after: null,
          me: 'Alice',
        }),
      );
      const messages = selectMessages(store.getState(), ROOM);
      expect(messages.map((m) => m.id)).toEqual(['Bob', 0]);
      expect(store.getState().chat.rooms[ROOM]?.lastSeq).toBe(2);
    });

    it('a resume appends only what is new', () => {
      const store = setup();
      const me = 'Alice';
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(1), msg(2)],
          complete: true,
          after: null,
          me,
        }),
      );
      store.dispatch(
        historyReceived({ room: ROOM, messages: [msg(2), msg(3)], complete: true, after: 2, me }),
      );
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2, 3]);
      expect(store.getState().chat.rooms[ROOM]?.earlierMissing).toBe(false);
    });

    it('complete:false replaces the list and flags that earlier messages are gone', () => {
      const store = setup();
      const me = 'Alice';
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(1), msg(2)],
          complete: true,
          after: null,
          me,
        }),
      );
      store.dispatch(
        historyReceived({ room: ROOM, messages: [msg(9)], complete: false, after: 2, me }),
      );
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([9]);
      expect(store.getState().chat.rooms[ROOM]?.earlierMissing).toBe(true);
    });

    it('keeps live messages that arrived before the answer to the first request', () => {
      const store = setup();
      store.dispatch(messageReceived({ room: ROOM, message: msg(5), clientId: null, own: false }));
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(3), msg(4)],
          complete: true,
          after: null,
          me: 'Alice',
        }),
      );
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([3, 4, 5]);
      expect(store.getState().chat.rooms[ROOM]?.lastSeq).toBe(5);
    });

    it('puts a late resume answer before newer live messages', () => {
      const store = setup();
      const me = 'Alice';
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(1), msg(2)],
          complete: true,
          after: null,
          me,
        }),
      );
      store.dispatch(messageReceived({ room: ROOM, message: msg(5), clientId: null, own: false }));
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(3), msg(4), msg(5)],
          complete: true,
          after: 2,
          me,
        }),
      );
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    it('a replacing answer keeps live messages newer than what it carries', () => {
      const store = setup();
      const me = 'Alice';
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(1), msg(2)],
          complete: true,
          after: null,
          me,
        }),
      );
      store.dispatch(messageReceived({ room: ROOM, message: msg(9), clientId: null, own: false }));
      store.dispatch(historyReceived({ room: ROOM, messages: [], complete: false, after: 2, me }));
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([9]);
      expect(store.getState().chat.rooms[ROOM]?.lastSeq).toBe(9);
    });

    it('reconciles an unconfirmed own message that history shows was stored', () => {
      const store = setup();
      store.dispatch(
        messageSent({ room: ROOM, clientId: 'c1', body: 'hi', senderName: 'Alice', timestamp: 1 }),
      );
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(4, 'Alice', 'hi')],
          complete: true,
          after: 3,
          me: 'Alice',
        }),
      );
      expect(selectMessages(store.getState(), ROOM).map((m) => [m.seq, m.status])).toEqual([
        [4, 'sent'],
      ]);
    });
  });

  describe('epoch', () => {
    const me = 'Alice';

    it("keeps the room's epoch and appends a resume of the same epoch", () => {
      const store = setup();
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(1)],
          complete: true,
          after: null,
          me,
          epoch: 'e1',
        }),
      );
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(2)],
          complete: true,
          after: 1,
          me,
          epoch: 'e1',
        }),
      );
      expect(store.getState().chat.rooms[ROOM]).toMatchObject({ epoch: 'e1', lastSeq: 2 });
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2]);
    });

    it('replaces the list when a resume answers with another epoch', () => {
      const store = setup();
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(7), msg(8)],
          complete: true,
          after: null,
          me,
          epoch: 'e1',
        }),
      );
      store.dispatch(
        messageSent({ room: ROOM, clientId: 'c1', body: 'mine', senderName: me, timestamp: 1 }),
      );
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(1)],
          complete: true,
          after: 8,
          me,
          epoch: 'e2',
        }),
      );
      const room = store.getState().chat.rooms[ROOM];
      expect(room).toMatchObject({ epoch: 'e2', lastSeq: 1, earlierMissing: true });
      expect(room?.messages.map((m) => [m.seq, m.message])).toEqual([
        [1, 'm1'],
        [null, 'mine'],
      ]);
    });

    it('drops the old numbering when a live message carries another epoch', () => {
      const store = setup();
      store.dispatch(
        historyReceived({
          room: ROOM,
          messages: [msg(5)],
          complete: true,
          after: null,
          me,
          epoch: 'e1',
        }),
      );
      store.dispatch(
        messageReceived({ room: ROOM, message: msg(1), clientId: null, own: false, epoch: 'e2' }),
      );
      expect(store.getState().chat.rooms[ROOM]).toMatchObject({ epoch: 'e2', lastSeq: 1 });
      expect(selectMessages(store.getState(), ROOM).map((m) => m.seq)).toEqual([1]);
    });
  });

  it('collects error frames as notices, at most three, dismissable', () => {
    const store = setup();
    for (const n of [1, 2, 3, 4]) {
      store.dispatch(errorFrameReceived({ code: 'rate_limited', message: `slow ${n}` }));
    }
    const notices = store.getState().chat.notices;
    expect(notices.map((n) => n.text)).toEqual(['slow 2', 'slow 3', 'slow 4']);
    store.dispatch(noticeDismissed({ id: notices[0]!.id }));
    expect(store.getState().chat.notices).toHaveLength(2);
  });

  it('asks the user after a second socket rejection in a row', () => {
    const store = setup();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(store.getState().chat.authErrors[ROOM]).toBeUndefined();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(store.getState().chat.authErrors[ROOM]).toBe(SESSION_EXPIRED_MESSAGE);
  });
});
