import {
  CloseCode,
  ErrorCode,
  FrameType,
  HISTORY_REQUEST_COUNT,
  PING_INTERVAL_MS,
  RECONNECT_ATTEMPTS,
  RATE_LIMITS,
  RECONNECT_INTERVAL_MS,
  type ServerFrame,
  TYPING_STALE_MS,
  TYPING_THROTTLE_MS,
} from '@taco/protocol';
import { fakeSocketDeps } from '../../test/fakeSocket';
import { makeStore } from '../app/store';
import {
  draftEdited,
  messageRetried,
  messageSent,
  reconnectRequested,
  renameRequested,
  roomCleared,
  roomJoined,
  roomLeft,
} from '../features/chat/chatActions';
import { selectMessages, selectResumePoint } from '../features/messages/messagesSlice';
import { selectParticipants } from '../features/presence/presenceSlice';
import { selectConnection } from '../features/connection/connectionSlice';
import { selectFeedEvents } from '../features/feed/feedSlice';
import { selectNotices } from '../features/notices/noticesSlice';
import { notifyModeChosen } from '../features/notifyPrefs/notifyPrefsSlice';
import { selectRoomAuth } from '../features/roomAuth/roomAuthSlice';
import { notificationTag } from './notifications';
import { RATE_LIMITED_TRIES } from './outbox';
import type { SocketDeps, TicketResult } from './socketDeps';
import { keyOf } from '../common/keyed';

const ROOM = 'teal-otter';
const EPOCH = 'e1';
const ME = 'Alice';
const auth = {
  [keyOf(ROOM)]: {
    roomID: ROOM,
    senderName: ME,
    token: 'tok en',
    authenticated: true,
    rejectionCount: 0,
  },
};
const chatMessage = (seq: number, sender = 'Bob', body = `m${seq}`) => ({
  sender,
  body,
  timestamp: 1_700_000_000 + seq,
  seq,
});

function setup(overrides: Partial<SocketDeps> = {}) {
  const fake = fakeSocketDeps(overrides);
  const store = makeStore({ roomAuth: auth }, { socket: fake.deps });
  store.dispatch(roomJoined({ room: ROOM, token: 'tok en' }));
  return { store, ...fake };
}

/** Opens the socket and answers the first history request. */
function openAndSync(fake: ReturnType<typeof setup>, history = [chatMessage(1)]) {
  const socket = fake.last();
  socket.serverOpen();
  socket.serverSend({
    type: FrameType.Message,
    room: ROOM,
    epoch: EPOCH,
    messages: history,
    complete: true,
  });
  socket.sent.length = 0;
  return socket;
}

/** Messages `from`, `from + 1`, … (`count` of them). */
const messagesFrom = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => chatMessage(from + i));

/** A history answer in the room's epoch. */
const historyFrame = (messages: ReturnType<typeof chatMessage>[]): ServerFrame => ({
  type: FrameType.Message,
  room: ROOM,
  epoch: EPOCH,
  messages,
  complete: true,
});

/** The history request resuming after `after` in the room's epoch. */
const resumeRequest = (after: number) => ({
  type: FrameType.History,
  count: HISTORY_REQUEST_COUNT,
  after,
  epoch: EPOCH,
});

/** Holds 1 and 2 from history, loses the connection, and opens the next one. */
function reconnected(fake: ReturnType<typeof setup>) {
  openAndSync(fake, [chatMessage(1), chatMessage(2)]);
  fake.last().serverClose(CloseCode.Abnormal);
  jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 1.2);
  const socket = fake.last();
  socket.serverOpen();
  return socket;
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('socket middleware: connection', () => {
  it('opens the socket with the room token and asks for the last 100 messages on first open', () => {
    const fake = setup();
    const socket = fake.last();
    expect(socket.url).toBe('ws://chat.test/api/room/teal-otter/ws?token=tok%20en');
    expect(selectConnection(fake.store.getState()).status).toBe('connecting');
    socket.serverOpen();
    expect(socket.sent).toEqual([{ type: FrameType.History, count: HISTORY_REQUEST_COUNT }]);
    expect(selectConnection(fake.store.getState()).status).toBe('open');
  });

  it('keeps one socket per tab: joining again with the same token does nothing', () => {
    const fake = setup();
    fake.store.dispatch(roomJoined({ room: ROOM, token: 'tok en' }));
    expect(fake.sockets).toHaveLength(1);
    fake.store.dispatch(roomJoined({ room: ROOM, token: 'new' }));
    expect(fake.sockets).toHaveLength(2);
    expect(fake.sockets[0]?.closedWith).toBe(CloseCode.Normal);
  });

  it('sends a heartbeat every ping interval while open', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    for (let beat = 0; beat < 2; beat++) {
      jest.advanceTimersByTime(PING_INTERVAL_MS);
      socket.serverSend({ type: FrameType.Heartbeat });
    }
    expect(socket.sent).toEqual([{ type: FrameType.Heartbeat }, { type: FrameType.Heartbeat }]);
  });

  it('closes the socket when the room is left and ignores its later events', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(roomLeft({ room: ROOM }));
    expect(socket.closedWith).toBe(CloseCode.Normal);
    socket.serverClose(CloseCode.Normal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(fake.sockets).toHaveLength(1);
    expect(selectConnection(fake.store.getState()).status).toBe('idle');
  });
});

describe('socket middleware: single-use tickets', () => {
  /** A ticket service the test answers by hand, one call at a time. */
  function ticketDesk() {
    const calls: Array<{ room: string; token: string; answer: (result: TicketResult) => void }> =
      [];
    const fetchTicket = (room: string, token: string) =>
      new Promise<TicketResult>((answer) => calls.push({ room, token, answer }));
    return { calls, fetchTicket };
  }
  /** Lets the middleware see a settled ticket promise. */
  const settle = () => Promise.resolve();

  it('asks for a ticket with the token and opens the socket with the ticket only', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    expect(fake.sockets).toHaveLength(0);
    expect(desk.calls.map(({ room, token }) => [room, token])).toEqual([[ROOM, 'tok en']]);
    desk.calls[0]?.answer({ ticket: 'T1cket' });
    await settle();
    expect(fake.last().url).toBe('ws://chat.test/api/room/teal-otter/ws?ticket=T1cket');
    expect(fake.last().url).not.toContain('tok');
  });

  it('gets a new ticket for every reconnect', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    desk.calls[0]?.answer({ ticket: 'first' });
    await settle();
    fake.last().serverOpen();
    fake.last().serverClose(CloseCode.Restart);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    expect(desk.calls).toHaveLength(2);
    desk.calls[1]?.answer({ ticket: 'second' });
    await settle();
    expect(fake.last().url).toContain('?ticket=second');
  });

  it('treats a refused ticket (401) like a 4401 close: credentials are requested again', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    desk.calls[0]?.answer({ status: 401 });
    await settle();
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(fake.sockets).toHaveLength(0);
    expect(desk.calls).toHaveLength(1);
    expect(selectRoomAuth(fake.store.getState(), ROOM)).toMatchObject({ authenticated: false });
  });

  it('retries later when the ticket call fails for any other reason', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    desk.calls[0]?.answer({ status: 0 });
    await settle();
    expect(selectConnection(fake.store.getState()).status).not.toBe('open');
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 2);
    expect(desk.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('ignores a ticket that arrives after the room was left', async () => {
    const desk = ticketDesk();
    const fake = setup({ fetchTicket: desk.fetchTicket });
    fake.store.dispatch(roomLeft({ room: ROOM }));
    desk.calls[0]?.answer({ ticket: 'late' });
    await settle();
    expect(fake.sockets).toHaveLength(0);
  });
});

describe('socket middleware: reconnection', () => {
  it('retries 10 times, 5 s apart with jitter, then gives up', () => {
    const fake = setup({ random: () => 0 });
    fake.last().serverOpen();
    fake.last().serverClose(CloseCode.Abnormal);
    for (let attempt = 1; attempt <= RECONNECT_ATTEMPTS; attempt++) {
      expect(selectConnection(fake.store.getState())).toMatchObject({
        status: 'reconnecting',
        attempt,
        retryDelayMs: RECONNECT_INTERVAL_MS * 0.8,
      });
      jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 0.8 - 1);
      expect(fake.sockets).toHaveLength(attempt);
      jest.advanceTimersByTime(1);
      expect(fake.sockets).toHaveLength(attempt + 1);
      fake.last().serverClose(CloseCode.Abnormal);
    }
    expect(selectConnection(fake.store.getState()).status).toBe('offline');
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 10);
    expect(fake.sockets).toHaveLength(RECONNECT_ATTEMPTS + 1);
  });

  it('spreads the delay by ±20 %', () => {
    const fake = setup({ random: () => 0.999 });
    fake.last().serverClose(CloseCode.Abnormal);
    expect(selectConnection(fake.store.getState()).retryDelayMs).toBe(
      Math.round(RECONNECT_INTERVAL_MS * (1 + 0.998 * 0.2)),
    );
  });

  it('counts attempts from the last successful open', () => {
    const fake = setup();
    fake.last().serverClose(CloseCode.Abnormal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    fake.last().serverClose(CloseCode.Abnormal);
    expect(selectConnection(fake.store.getState()).attempt).toBe(2);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    fake.last().serverOpen();
    fake.last().serverClose(CloseCode.Abnormal);
    expect(selectConnection(fake.store.getState()).attempt).toBe(1);
  });

  it('reconnects at once (within a second) on 1012', () => {
    const fake = setup({ random: () => 0.5 });
    fake.last().serverOpen();
    fake.last().serverClose(CloseCode.Restart);
    jest.advanceTimersByTime(500);
    expect(fake.sockets).toHaveLength(2);
  });

  it('does not reconnect on 4401 but counts a rejection so credentials are requested again', () => {
    const fake = setup();
    fake.last().serverClose(CloseCode.Unauthorized);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(fake.sockets).toHaveLength(1);
    expect(selectRoomAuth(fake.store.getState(), ROOM)).toMatchObject({
      authenticated: false,
      token: '',
      rejectionCount: 1,
    });
  });

  it('stops on a policy close, and reconnects when the user asks', () => {
    const fake = setup();
    fake.last().serverClose(CloseCode.Policy);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 3);
    expect(fake.sockets).toHaveLength(1);
    expect(selectConnection(fake.store.getState()).status).toBe('offline');
    fake.store.dispatch(reconnectRequested({ room: ROOM }));
    expect(fake.sockets).toHaveLength(2);
  });

  it('asks for history after the last seq on reconnect, and again while batches are full', () => {
    const fake = setup();
    const socket = reconnected(fake);
    expect(socket.sent).toEqual([resumeRequest(2)]);
    socket.serverSend(historyFrame(messagesFrom(3, HISTORY_REQUEST_COUNT)));
    expect(socket.sent[1]).toEqual(resumeRequest(HISTORY_REQUEST_COUNT + 2));
    socket.serverSend(historyFrame([chatMessage(HISTORY_REQUEST_COUNT + 3)]));
    const seqs = selectMessages(fake.store.getState(), ROOM).map((m) => m.seq);
    expect(seqs).toEqual(Array.from({ length: HISTORY_REQUEST_COUNT + 3 }, (_, i) => i + 1));
  });
});

describe('socket middleware: the resume point', () => {
  /** Reconnects, and a live message comes before the resume's answer. */
  function resumeOvertaken(liveSeq: number) {
    const fake = setup();
    const socket = reconnected(fake);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(liveSeq),
    });
    return { fake, socket };
  }

  it('asks for the next page after the page, not after a live message that overtook it', () => {
    const live = HISTORY_REQUEST_COUNT * 3;
    const { fake, socket } = resumeOvertaken(live);
    socket.serverSend(historyFrame(messagesFrom(3, HISTORY_REQUEST_COUNT)));
    expect(socket.sent[1]).toEqual(resumeRequest(HISTORY_REQUEST_COUNT + 2));
    socket.serverSend(historyFrame(messagesFrom(HISTORY_REQUEST_COUNT + 3, HISTORY_REQUEST_COUNT)));
    expect(socket.sent[2]).toEqual(resumeRequest(HISTORY_REQUEST_COUNT * 2 + 2));
    socket.serverSend(
      historyFrame(messagesFrom(HISTORY_REQUEST_COUNT * 2 + 3, HISTORY_REQUEST_COUNT - 2)),
    );
    const seqs = selectMessages(fake.store.getState(), ROOM).map((m) => m.seq);
    expect(seqs).toEqual(Array.from({ length: live }, (_, i) => i + 1));
    expect(selectResumePoint(fake.store.getState(), ROOM).after).toBe(live);
  });

  it('resumes from where it was when the socket drops before the answer', () => {
    const { fake } = resumeOvertaken(50);
    fake.last().serverClose(CloseCode.Abnormal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 1.2);
    fake.last().serverOpen();
    expect(fake.last().sent).toEqual([resumeRequest(2)]);
  });
});

it('lets a typing indicator outlive the pause between two typing frames', () => {
  expect(TYPING_STALE_MS).toBeGreaterThan(TYPING_THROTTLE_MS);
});

describe('socket middleware: epoch', () => {
  it('resumes with the epoch of its seq, and replaces the list when the room started again', () => {
    const fake = setup();
    openAndSync(fake, [chatMessage(1), chatMessage(2)]);
    fake.last().serverClose(CloseCode.Restart);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    const socket = fake.last();
    socket.serverOpen();
    expect(socket.sent).toEqual([
      { type: FrameType.History, count: HISTORY_REQUEST_COUNT, after: 2, epoch: EPOCH },
    ]);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: 'e2',
      messages: [chatMessage(1, 'Bob', 'new numbering')],
      complete: false,
    });
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => [m.seq, m.message])).toEqual([
      [1, 'new numbering'],
    ]);
    socket.serverSend({ type: FrameType.Message, room: ROOM, epoch: 'e2', ...chatMessage(2) });
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.seq)).toEqual([1, 2]);
    expect(selectResumePoint(fake.store.getState(), ROOM).epoch).toBe('e2');
  });
});

describe('socket middleware: frames in', () => {
  it('turns message, typing, presence and clear frames into state', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Bob', connecting: true });
    socket.serverSend({ type: FrameType.Typing, room: ROOM, sender: 'Bob', typing: true });
    expect(selectParticipants(fake.store.getState(), ROOM)).toEqual([
      { name: 'Bob', active: true, typing: true, lastTypingTime: Date.now() },
    ]);
    socket.serverSend({ type: FrameType.Message, room: ROOM, epoch: EPOCH, ...chatMessage(2) });
    expect(selectMessages(fake.store.getState(), ROOM)).toHaveLength(2);
    socket.serverSend({ type: FrameType.Clear, room: ROOM, sender: 'Bob' });
    expect(selectMessages(fake.store.getState(), ROOM)).toEqual([]);
  });

  it('drops a typing indicator that is not refreshed', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    socket.serverSend({ type: FrameType.Typing, room: ROOM, sender: 'Bob', typing: true });
    jest.advanceTimersByTime(TYPING_STALE_MS);
    expect(selectParticipants(fake.store.getState(), ROOM)[0]?.typing).toBe(false);
  });

  it('notifies for single remote messages only: not own ones, not history batches', () => {
    const fake = setup();
    const socket = openAndSync(fake, [chatMessage(1), chatMessage(2)]);
    expect(fake.notifications).toEqual([]);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(3, 'Bob', 'hey'),
    });
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(4, ME, 'mine'),
    });
    expect(fake.notifications).toEqual([['Bob', 'hey']]);
  });

  it('ignores frames of an unexpected shape and logs them', () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const fake = setup();
    const socket = openAndSync(fake);
    socket.serverSendText('{"type":1,"room":"teal-otter"}');
    expect(selectMessages(fake.store.getState(), ROOM)).toHaveLength(1);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it('shows error frames as notices and fails exactly the message the error names', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    for (const clientId of ['c0', 'c1']) {
      fake.store.dispatch(
        messageSent({ room: ROOM, clientId, body: 'hi', senderName: ME, timestamp: 1 }),
      );
    }
    socket.serverSend({
      type: FrameType.Error,
      code: ErrorCode.RateLimited,
      message: 'You are sending too fast; please slow down',
    });
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.status)).toEqual([
      'sent',
      'pending',
      'pending',
    ]);
    socket.serverSend({
      type: FrameType.Error,
      code: ErrorCode.Unavailable,
      message: 'The server could not store that; please try again',
      client_id: 'c1',
    });
    expect(selectNotices(fake.store.getState()).map((n) => n.text)).toEqual([
      'The server could not store that; please try again',
    ]);
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.status)).toEqual([
      'sent',
      'pending',
      'failed',
    ]);
    socket.sent.length = 0;
    fake.store.dispatch(messageRetried({ room: ROOM, clientId: 'c1' }));
    expect(socket.sent).toEqual([{ type: FrameType.Message, body: 'hi', client_id: 'c1' }]);
  });
});

describe('socket middleware: frames out', () => {
  it('sends a message with its client id, then typing=false, and reconciles the echo', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    socket.sent.length = 0;
    fake.store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'hello', senderName: ME, timestamp: 1 }),
    );
    expect(socket.sent).toEqual([
      { type: FrameType.Message, body: 'hello', client_id: 'c1' },
      { type: FrameType.Typing, typing: false },
    ]);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(2, ME, 'hello'),
      client_id: 'c1',
    });
    const messages = selectMessages(fake.store.getState(), ROOM);
    expect(messages.map((m) => [m.message, m.status, m.id])).toEqual([
      ['m1', 'sent', 'Bob'],
      ['hello', 'sent', 0],
    ]);
    expect(fake.notifications).toEqual([]);
  });

  it('keeps messages typed while offline and sends them once history is resumed', () => {
    const fake = setup();
    openAndSync(fake);
    fake.last().serverClose(CloseCode.Abnormal);
    fake.store.dispatch(
      messageSent({ room: ROOM, clientId: 'c9', body: 'offline', senderName: ME, timestamp: 1 }),
    );
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 1.2);
    const socket = fake.last();
    socket.serverOpen();
    expect(socket.sent).toEqual([
      { type: FrameType.History, count: HISTORY_REQUEST_COUNT, after: 1, epoch: EPOCH },
    ]);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [],
      complete: true,
    });
    expect(socket.sent[1]).toEqual({ type: FrameType.Message, body: 'offline', client_id: 'c9' });
  });

  it('does not send again a message that history shows was stored before the drop', () => {
    const fake = setup();
    const first = openAndSync(fake);
    fake.store.dispatch(
      messageSent({ room: ROOM, clientId: 'c5', body: 'sent?', senderName: ME, timestamp: 1 }),
    );
    expect(first.sent[0]).toEqual({ type: FrameType.Message, body: 'sent?', client_id: 'c5' });
    first.serverClose(CloseCode.Abnormal);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 1.2);
    const socket = fake.last();
    socket.serverOpen();
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [chatMessage(2, ME, 'sent?')],
      complete: true,
    });
    expect(socket.sent).toHaveLength(1);
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => [m.message, m.status])).toEqual([
      ['m1', 'sent'],
      ['sent?', 'sent'],
    ]);
  });

  it('sends a clear frame for a local clear only', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(roomCleared({ room: ROOM, source: 'local' }));
    fake.store.dispatch(roomCleared({ room: ROOM, source: 'remote' }));
    expect(socket.sent).toEqual([{ type: FrameType.Clear }]);
  });

  it('sends typing=true at most once per 2 s on the leading edge, and typing=false on clear', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    const typing = () =>
      socket.sent.filter((f) => (f as { type: number }).type === FrameType.Typing);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    jest.advanceTimersByTime(TYPING_THROTTLE_MS - 1);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    expect(typing()).toEqual([{ type: FrameType.Typing, typing: true }]);
    jest.advanceTimersByTime(1);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    fake.store.dispatch(draftEdited({ room: ROOM, text: '' }));
    expect(typing()).toEqual([
      { type: FrameType.Typing, typing: true },
      { type: FrameType.Typing, typing: true },
      { type: FrameType.Typing, typing: false },
    ]);
  });

  it('sends typing=false only while others may see the user typing (typing frames are rate limited)', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(draftEdited({ room: ROOM, text: '' }));
    fake.store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'x', senderName: ME, timestamp: 1 }),
    );
    expect(socket.sent).toEqual([{ type: FrameType.Message, body: 'x', client_id: 'c1' }]);
    fake.store.dispatch(draftEdited({ room: ROOM, text: 'hi' }));
    fake.store.dispatch(draftEdited({ room: ROOM, text: '' }));
    fake.store.dispatch(draftEdited({ room: ROOM, text: '' }));
    expect(socket.sent.slice(1)).toEqual([
      { type: FrameType.Typing, typing: true },
      { type: FrameType.Typing, typing: false },
    ]);
  });
});

describe('socket middleware: rate limits', () => {
  const rateLimited = (clientId: string) => ({
    type: FrameType.Error,
    code: ErrorCode.RateLimited,
    message: 'You are sending too fast; please slow down',
    client_id: clientId,
  });
  const sentIds = (socket: { sent: unknown[] }) =>
    socket.sent.map((frame) => (frame as { client_id?: string }).client_id);
  const typed = (fake: ReturnType<typeof setup>, ...ids: string[]) => {
    for (const clientId of ids) {
      fake.store.dispatch(
        messageSent({ room: ROOM, clientId, body: clientId, senderName: ME, timestamp: 1 }),
      );
    }
  };

  it('paces a burst beyond the bucket instead of sending it all at once', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    const ids = Array.from({ length: RATE_LIMITS.messageBurst + 2 }, (_, i) => `c${i}`);
    typed(fake, ...ids);
    // typing=false frames are not messages
    const messages = () => sentIds(socket).filter((id) => id !== undefined);
    // All but the last token of the bucket at once (one stays in hand for network jitter).
    expect(messages()).toEqual(ids.slice(0, RATE_LIMITS.messageBurst - 1));
    jest.advanceTimersByTime(3000);
    expect(messages()).toEqual(ids);
  });

  it('retries what the server refused as rate limited, in the order typed, with one notice', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    typed(fake, 'a', 'b', 'c');
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      client_id: 'a',
      ...chatMessage(2, ME, 'a'),
    });
    socket.serverSend(rateLimited('b'));
    socket.serverSend(rateLimited('c'));
    expect(selectNotices(fake.store.getState())).toHaveLength(1);
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.status)).toEqual([
      'sent',
      'sent',
      'pending',
      'pending',
    ]);
    socket.sent.length = 0;
    jest.advanceTimersByTime(2000);
    expect(sentIds(socket)).toEqual(['b', 'c']);
  });

  it('marks a message not sent only when its retries ran out, and Retry sends it again', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    typed(fake, 'a');
    for (let i = 0; i < RATE_LIMITED_TRIES; i++) {
      expect(selectMessages(fake.store.getState(), ROOM)[1]?.status).toBe('pending');
      socket.serverSend(rateLimited('a'));
      jest.advanceTimersByTime(1000);
    }
    expect(selectMessages(fake.store.getState(), ROOM)[1]?.status).toBe('failed');
    socket.sent.length = 0;
    jest.advanceTimersByTime(5000);
    expect(socket.sent).toEqual([]);
    fake.store.dispatch(messageRetried({ room: ROOM, clientId: 'a' }));
    expect(socket.sent).toEqual([{ type: FrameType.Message, body: 'a', client_id: 'a' }]);
  });
});

describe('socket middleware: notifications', () => {
  const say = (socket: ReturnType<typeof openAndSync>, seq: number, body: string) =>
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(seq, 'Bob', body),
    });

  it('notifies every message by default, each with the room tag', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    say(socket, 2, 'one');
    say(socket, 3, 'two');
    expect(fake.notifications).toEqual([
      ['Bob', 'one'],
      ['Bob', 'two'],
    ]);
    expect(fake.tags).toEqual([notificationTag(ROOM), notificationTag(ROOM)]);
  });

  it('in Mentions only notifies a message that mentions the user, and Off none', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(notifyModeChosen({ room: ROOM, mode: 'mentions' }));
    say(socket, 2, 'hello all');
    say(socket, 3, 'hey @alice, look');
    say(socket, 4, 'mail me at bob@alice.test');
    expect(fake.notifications).toEqual([['Bob', 'hey @alice, look']]);
    fake.store.dispatch(notifyModeChosen({ room: ROOM, mode: 'off' }));
    say(socket, 5, '@Alice?');
    expect(fake.notifications).toHaveLength(1);
  });

  it('in Mentions only does not take a mention of a longer name in the room for the user', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(notifyModeChosen({ room: ROOM, mode: 'mentions' }));
    socket.serverSend({
      type: FrameType.Presence,
      room: ROOM,
      sender: `${ME} Lee`,
      connecting: true,
    });
    say(socket, 2, `@${ME} Lee, your turn`);
    say(socket, 3, `@${ME}, yours`);
    expect(fake.notifications).toEqual([['Bob', `@${ME}, yours`]]);
  });
});

describe('socket middleware: rename', () => {
  /** What the server says of a rename: the new name present, and the old one gone. */
  const renamedFrames = (from: string, to: string) =>
    ({
      present: {
        type: FrameType.Presence,
        room: ROOM,
        sender: to,
        connecting: true,
        renamed_from: from,
      },
      gone: {
        type: FrameType.Presence,
        room: ROOM,
        sender: from,
        connecting: false,
        renamed_to: to,
      },
    }) as const;

  it('sends the new token on the open socket and adopts it once the server confirms', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    fake.store.dispatch(renameRequested({ room: ROOM, name: 'Alicia', token: 'new-token' }));
    expect(socket.sent).toEqual([{ type: FrameType.Rename, token: 'new-token' }]);
    expect(selectRoomAuth(fake.store.getState(), ROOM)?.senderName).toBe(ME);
    const { present, gone } = renamedFrames(ME, 'Alicia');
    socket.serverSend(present);
    socket.serverSend(gone);
    expect(selectRoomAuth(fake.store.getState(), ROOM)).toMatchObject({
      senderName: 'Alicia',
      token: 'new-token',
      authenticated: true,
    });
    expect(selectParticipants(fake.store.getState(), ROOM).map((p) => p.name)).toEqual(['Alicia']);
    // The page joins with the new token: the socket is already that name's, it stays open.
    fake.store.dispatch(roomJoined({ room: ROOM, token: 'new-token' }));
    expect(fake.sockets).toHaveLength(1);
    expect(selectConnection(fake.store.getState()).status).toBe('open');
  });

  it('keeps the messages sent under the old name as own after a reload, not those of whoever takes it', () => {
    const fake = setup();
    const socket = openAndSync(fake, [chatMessage(1, ME, 'before'), chatMessage(2)]);
    fake.store.dispatch(renameRequested({ room: ROOM, name: 'Alicia', token: 'new-token' }));
    const { present, gone } = renamedFrames(ME, 'Alicia');
    socket.serverSend(present);
    socket.serverSend(gone);
    expect(selectRoomAuth(fake.store.getState(), ROOM)?.formerNames).toEqual([
      { name: ME, epoch: EPOCH, upToSeq: 2 },
    ]);

    // A reload: the credential is restored, the messages come again from history.
    const again = fakeSocketDeps();
    const store = makeStore({ roomAuth: fake.store.getState().roomAuth }, { socket: again.deps });
    store.dispatch(roomJoined({ room: ROOM, token: 'new-token' }));
    again.last().serverOpen();
    again.last().serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [chatMessage(1, ME, 'before'), chatMessage(2), chatMessage(3, ME, 'a newcomer')],
      complete: true,
    });
    const own = selectMessages(store.getState(), ROOM).map((m) => [m.message, m.id === 0]);
    expect(own).toEqual([
      ['before', true],
      ['m2', false],
      ['a newcomer', false],
    ]);
  });

  it('takes the new name for the next connection when none is open to carry it', () => {
    const fake = setup();
    const socket = openAndSync(fake, [chatMessage(1, ME, 'before')]);
    socket.serverClose(CloseCode.Abnormal);
    fake.store.dispatch(renameRequested({ room: ROOM, name: 'Alicia', token: 'new-token' }));
    expect(socket.sent).toEqual([]);
    expect(selectRoomAuth(fake.store.getState(), ROOM)).toMatchObject({
      senderName: 'Alicia',
      token: 'new-token',
      formerNames: [{ name: ME, epoch: EPOCH, upToSeq: 1 }],
    });
  });

  it('confirms a rename into the name another tab of the user holds already, with no new line', () => {
    const fake = setup();
    const socket = openAndSync(fake);
    // The other tab renamed first: the room heard of it, this tab among them.
    const { present, gone } = renamedFrames(ME, 'Alicia');
    socket.serverSend(present);
    fake.store.dispatch(renameRequested({ room: ROOM, name: 'Alicia', token: 'new-token' }));
    // Only this connection hears that it moved.
    socket.serverSend(present);
    socket.serverSend(gone);
    expect(selectRoomAuth(fake.store.getState(), ROOM)?.senderName).toBe('Alicia');
    expect(selectParticipants(fake.store.getState(), ROOM).map((p) => p.name)).toEqual(['Alicia']);
    const lines = selectFeedEvents(fake.store.getState(), ROOM).map((e) => [e.kind, e.name]);
    expect(lines).toEqual([['renamed', 'Alicia']]);
  });

  it("shows someone else's rename without touching the user's credential", () => {
    const fake = setup();
    const socket = openAndSync(fake);
    socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Bob', connecting: true });
    socket.serverSend({
      type: FrameType.Presence,
      room: ROOM,
      sender: 'Bobby',
      connecting: true,
      renamed_from: 'Bob',
    });
    socket.serverSend({
      type: FrameType.Presence,
      room: ROOM,
      sender: 'Bob',
      connecting: false,
      renamed_to: 'Bobby',
    });
    expect(selectParticipants(fake.store.getState(), ROOM).map((p) => [p.name, p.active])).toEqual([
      ['Bobby', true],
    ]);
    expect(selectRoomAuth(fake.store.getState(), ROOM)?.senderName).toBe(ME);
  });
});

describe('socket middleware: a server restart', () => {
  it('keeps the messages held until the answer of the new epoch replaces them', () => {
    const fake = setup();
    openAndSync(fake, [chatMessage(1), chatMessage(2)]);
    fake.last().serverClose(CloseCode.Restart);
    jest.advanceTimersByTime(RECONNECT_INTERVAL_MS);
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.message)).toEqual(['m1', 'm2']);
    const socket = fake.last();
    socket.serverOpen();
    expect(selectMessages(fake.store.getState(), ROOM).map((m) => m.message)).toEqual(['m1', 'm2']);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: 'e2',
      messages: [],
      complete: false,
    });
    expect(selectMessages(fake.store.getState(), ROOM)).toEqual([]);
  });
});
