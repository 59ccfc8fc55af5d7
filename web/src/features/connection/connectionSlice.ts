import { createSlice } from '@reduxjs/toolkit';
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

export type ConnectionStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'offline';

/** The tab's one socket, as the user sees it. */
export interface ConnectionState {
  /** The room the socket is for, while a room page is joined. */
  room: string | null;
  status: ConnectionStatus;
  /** Reconnect attempts since the last successful open. */
  attempt: number;
  /** Delay before the scheduled reconnect, while one is scheduled. */
  retryDelayMs: number | null;
}

const initialState: ConnectionState = {
  room: null,
  status: 'idle',
  attempt: 0,
  retryDelayMs: null,
};

export const connectionSlice = createSlice({
  name: 'connection',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(roomJoined, (state, action) =>
        // Joined again while open (a rename's new token): the socket stays as it is; if it does
        // not, `reconnectStarted` follows.
        state.room === action.payload.room && state.status === 'open'
          ? state
          : { room: action.payload.room, status: 'connecting', attempt: 0, retryDelayMs: null },
      )
      .addCase(roomLeft, (state, action) =>
        state.room === action.payload.room ? initialState : state,
      )
      .addCase(connectionOpened, (_state, action) => ({
        room: action.payload.room,
        status: 'open',
        attempt: 0,
        retryDelayMs: null,
      }))
      .addCase(connectionClosed, (state, action) => {
        if (state.room === action.payload.room) state.status = 'reconnecting';
      })
      .addCase(reconnectScheduled, (state, action) => {
        state.status = 'reconnecting';
        state.attempt = action.payload.attempt;
        state.retryDelayMs = action.payload.delayMs;
      })
      .addCase(reconnectStarted, (state, action) => {
        state.status = action.payload.attempt > 0 ? 'reconnecting' : 'connecting';
        state.retryDelayMs = null;
      })
      .addCase(connectionLost, (state, action) => {
        if (state.room !== action.payload.room) return;
        state.status = 'offline';
        state.retryDelayMs = null;
      })
      .addCase(reconnectRequested, (state, action) => {
        if (state.room !== action.payload.room) return;
        if (state.status !== 'reconnecting' && state.status !== 'offline') return;
        state.attempt = 0;
        state.status = 'connecting';
      })
      .addCase(unauthorized, (state, action) => {
        // The user must authenticate again before the socket may open.
        if (action.payload.source === 'socket') state.status = 'idle';
      });
  },
});

type WithConnection = { connection: ConnectionState };

export const selectConnection = (state: WithConnection) => state.connection;

/** The socket's status for `room`: `idle` while the socket is not for that room. */
export const selectConnectionStatus = (state: WithConnection, room: string): ConnectionStatus =>
  state.connection.room === room ? state.connection.status : 'idle';

/** Whether the socket of `room` is open: presence is known and frames reach the others. */
export const selectIsConnected = (state: WithConnection, room: string) =>
  selectConnectionStatus(state, room) === 'open';

/** The reconnect attempt under way or scheduled (0 when none). */
export const selectReconnectAttempt = (state: WithConnection) => state.connection.attempt;
