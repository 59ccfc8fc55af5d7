import {
  CloseCode,
  HISTORY_REQUEST_COUNT,
  RECONNECT_ATTEMPTS,
  RECONNECT_INTERVAL_MS,
} from '@taco/protocol';
import {
  chatMessage,
  historyFrame,
  messagesFrom,
  reconnected,
  resumeRequest,
  ROOM,
  setup,
} from '../../test/socketRoom';
import { reconnectRequested } from '../features/chat/chatActions';
import { selectMessages } from '../features/messages/messagesSlice';
import { selectConnection } from '../features/connection/connectionSlice';
import { selectRoomAuth } from '../features/roomAuth/roomAuthSlice';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

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
