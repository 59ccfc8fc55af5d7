import {
  CloseCode,
  FrameType,
  HISTORY_REQUEST_COUNT,
  RECONNECT_INTERVAL_MS,
  type ServerFrame,
} from '@taco/protocol';
import { makeStore } from '../src/app/store';
import { keyOf } from '../src/common/keyed';
import { roomJoined } from '../src/features/chat/chatActions';
import type { SocketDeps } from '../src/socket/socketDeps';
import { fakeSocketDeps } from './fakeSocket';

// A store joined to a room over fake sockets, for the socket middleware's tests.

export const ROOM = 'teal-otter';
export const EPOCH = 'e1';
export const ME = 'Alice';
const auth = {
  [keyOf(ROOM)]: {
    roomID: ROOM,
    senderName: ME,
    token: 'tok en',
    authenticated: true,
    rejectionCount: 0,
  },
};
export const chatMessage = (seq: number, sender = 'Bob', body = `m${seq}`) => ({
  sender,
  body,
  timestamp: 1_700_000_000 + seq,
  seq,
});

/** A store that has joined the room as Alice; its socket waits for the server to open it. */
export function setup(overrides: Partial<SocketDeps> = {}) {
  const fake = fakeSocketDeps(overrides);
  const store = makeStore({ roomAuth: auth }, { socket: fake.deps });
  store.dispatch(roomJoined({ room: ROOM, token: 'tok en' }));
  return { store, ...fake };
}

/** Messages `from`, `from + 1`, … (`count` of them). */
export const messagesFrom = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => chatMessage(from + i));

/** A history answer in the room's epoch. */
export const historyFrame = (messages: ReturnType<typeof chatMessage>[]): ServerFrame => ({
  type: FrameType.Message,
  room: ROOM,
  epoch: EPOCH,
  messages,
  complete: true,
});

/** Opens the socket and answers the first history request. */
export function openAndSync(fake: ReturnType<typeof setup>, history = [chatMessage(1)]) {
  const socket = fake.last();
  socket.serverOpen();
  socket.serverSend(historyFrame(history));
  socket.sent.length = 0;
  return socket;
}

/** The history request resuming after `after` in the room's epoch. */
export const resumeRequest = (after: number) => ({
  type: FrameType.History,
  count: HISTORY_REQUEST_COUNT,
  after,
  epoch: EPOCH,
});

/** Holds 1 and 2 from history, loses the connection, and opens the next one. */
export function reconnected(fake: ReturnType<typeof setup>) {
  openAndSync(fake, [chatMessage(1), chatMessage(2)]);
  fake.last().serverClose(CloseCode.Abnormal);
  jest.advanceTimersByTime(RECONNECT_INTERVAL_MS * 1.2);
  const socket = fake.last();
  socket.serverOpen();
  return socket;
}
