import type { UnknownAction } from '@reduxjs/toolkit';
import {
  connectionClosed,
  connectionLost,
  connectionOpened,
  reconnectRequested,
  reconnectScheduled,
  reconnectStarted,
  roomJoined,
  roomLeft,
} from '../chat/chatActions';
import { unauthorized } from '../roomAuth/roomAuthSlice';
import {
  type ConnectionState,
  connectionSlice,
  selectConnection,
  selectConnectionStatus,
  selectIsConnected,
  selectReconnectAttempt,
} from './connectionSlice';

const ROOM = 'teal-otter';
const OTHER = 'red-fox';

/** The state after `actions`, wrapped as the root state the selectors read. */
function after(...actions: UnknownAction[]): { connection: ConnectionState } {
  return { connection: actions.reduce(connectionSlice.reducer, connectionSlice.getInitialState()) };
}

const joined = roomJoined({ room: ROOM, token: 't' });
const opened = connectionOpened({ room: ROOM });
const closed = connectionClosed({ room: ROOM, code: 1006 });

describe('connection slice', () => {
  it('starts idle, with no room', () => {
    expect(selectConnection(after())).toEqual({
      room: null,
      status: 'idle',
      attempt: 0,
      retryDelayMs: null,
    });
  });

  it('connects when a room is joined, and is open once the socket opens', () => {
    expect(selectConnection(after(joined))).toMatchObject({ room: ROOM, status: 'connecting' });
    expect(selectIsConnected(after(joined), ROOM)).toBe(false);
    expect(selectConnection(after(joined, opened))).toMatchObject({ status: 'open', attempt: 0 });
    expect(selectIsConnected(after(joined, opened), ROOM)).toBe(true);
  });

  it('reconnects after a close of its own room, and ignores a close of another', () => {
    expect(selectConnectionStatus(after(joined, opened, closed), ROOM)).toBe('reconnecting');
    const other = connectionClosed({ room: OTHER, code: 1006 });
    expect(selectConnectionStatus(after(joined, opened, other), ROOM)).toBe('open');
  });

  it('shows the scheduled attempt and its delay, and clears the delay when it starts', () => {
    const scheduled = reconnectScheduled({ room: ROOM, attempt: 3, delayMs: 4200 });
    expect(selectConnection(after(joined, closed, scheduled))).toMatchObject({
      status: 'reconnecting',
      attempt: 3,
      retryDelayMs: 4200,
    });
    expect(selectReconnectAttempt(after(joined, closed, scheduled))).toBe(3);
    const started = reconnectStarted({ room: ROOM, attempt: 3 });
    expect(selectConnection(after(joined, closed, scheduled, started))).toMatchObject({
      status: 'reconnecting',
      retryDelayMs: null,
    });
    const first = reconnectStarted({ room: ROOM, attempt: 0 });
    expect(selectConnectionStatus(after(joined, first), ROOM)).toBe('connecting');
  });

  it('goes offline when the socket gives up, for its own room only', () => {
    const lost = connectionLost({ room: ROOM, reason: 'exhausted' });
    expect(selectConnection(after(joined, closed, lost))).toMatchObject({
      status: 'offline',
      retryDelayMs: null,
    });
    const otherLost = connectionLost({ room: OTHER, reason: 'exhausted' });
    expect(selectConnectionStatus(after(joined, closed, otherLost), ROOM)).toBe('reconnecting');
  });

  it('starts over from attempt 0 when the user asks to reconnect, only while not connected', () => {
    const scheduled = reconnectScheduled({ room: ROOM, attempt: 4, delayMs: 5000 });
    const asked = reconnectRequested({ room: ROOM });
    expect(selectConnection(after(joined, closed, scheduled, asked))).toMatchObject({
      status: 'connecting',
      attempt: 0,
    });
    const lost = connectionLost({ room: ROOM, reason: 'policy' });
    expect(selectConnectionStatus(after(joined, closed, lost, asked), ROOM)).toBe('connecting');
    expect(selectConnectionStatus(after(joined, opened, asked), ROOM)).toBe('open');
    const otherAsked = reconnectRequested({ room: OTHER });
    expect(selectConnectionStatus(after(joined, closed, lost, otherAsked), ROOM)).toBe('offline');
  });

  it('waits idle for new credentials after a socket rejection', () => {
    const socket = unauthorized({ room: ROOM, source: 'socket' });
    expect(selectConnectionStatus(after(joined, closed, socket), ROOM)).toBe('idle');
    const http = unauthorized({ room: ROOM, source: 'http' });
    expect(selectConnectionStatus(after(joined, closed, http), ROOM)).toBe('reconnecting');
  });

  it('forgets the socket when its room is left, not when another room is', () => {
    expect(selectConnection(after(joined, opened, roomLeft({ room: ROOM })))).toEqual(
      selectConnection(after()),
    );
    expect(selectConnectionStatus(after(joined, opened, roomLeft({ room: OTHER })), ROOM)).toBe(
      'open',
    );
  });

  it('reports idle for a room the socket is not for', () => {
    expect(selectConnectionStatus(after(joined, opened), OTHER)).toBe('idle');
    expect(selectIsConnected(after(joined, opened), OTHER)).toBe(false);
  });
});
