import type { Middleware } from '@reduxjs/toolkit';
import {
  ApiPath,
  type ClientFrame,
  CloseCode,
  decideReconnect,
  decodeServerFrame,
  encodeFrame,
  FrameType,
  HISTORY_REQUEST_COUNT,
  isHistoryFrame,
  PING_INTERVAL_MS,
  type ServerFrame,
  TYPING_THROTTLE_MS,
  userNameKey,
} from '@taco/protocol';
import {
  type ChatState,
  connectionClosed,
  connectionLost,
  connectionOpened,
  draftEdited,
  errorFrameReceived,
  historyReceived,
  messageFailed,
  messageReceived,
  messageRetried,
  messageSent,
  presenceUpdated,
  reconnectRequested,
  reconnectScheduled,
  reconnectStarted,
  roomCleared,
  roomJoined,
  roomLeft,
  TYPING_STALE_MS,
  typingExpired,
  typingUpdated,
} from '../features/chat/chatSlice';
import { type RoomAuthState, unauthorized } from '../features/roomAuth/roomAuthSlice';
import {
  browserSocketFactory,
  type SocketConnection,
  type SocketFactory,
  socketOrigin,
} from './socketFactory';
import { showNotification } from './notifications';

export type TimerId = ReturnType<typeof setTimeout>;

/** Everything the middleware needs from the outside world, so tests can inject it. */
export interface SocketDeps {
  createSocket: SocketFactory;
  /** `ws://host` or `wss://host`. */
  socketOrigin: () => string;
  random: () => number;
  now: () => number;
  setTimeout: (callback: () => void, ms: number) => TimerId;
  clearTimeout: (id: TimerId) => void;
  setInterval: (callback: () => void, ms: number) => TimerId;
  clearInterval: (id: TimerId) => void;
  notify: (sender: string, message: string) => void;
}

export const defaultSocketDeps = (): SocketDeps => ({
  createSocket: browserSocketFactory,
  socketOrigin: () => socketOrigin(window.location),
  random: () => Math.random(),
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (id) => clearTimeout(id),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (id) => clearInterval(id),
  notify: showNotification,
});

interface SocketState {
  chat: ChatState;
  roomAuth: RoomAuthState;
}

/**
 * Owns the one WebSocket of the tab: opens it when a room is joined, turns frames into actions
 * and actions into frames, sends heartbeats, and reconnects by `decideReconnect`.
 */
export function createSocketMiddleware(deps: SocketDeps): Middleware<object, SocketState> {
  return (api) => {
    let connection: SocketConnection | null = null;
    let open = false;
    let room: string | null = null;
    let token: string | null = null;
    let attempts = 0;
    /** Bumped for every new connection, so events of an old one are ignored. */
    let generation = 0;
    let retryTimer: TimerId | null = null;
    let heartbeatTimer: TimerId | null = null;
    /** The first history answer of this connection arrived; pending messages may go out. */
    let synced = false;
    /** `after` of the history request waiting for its answer (`null`: the last messages). */
    let historyAfter: number | null = null;
    /** Client ids sent on this connection. */
    const sentOnConnection = new Set<string>();
    let lastTypingSentAt = Number.NEGATIVE_INFINITY;
    /** The last typing frame sent said `true`: others see this user typing. */
    let typingShown = false;

    const me = () => (room ? (api.getState().roomAuth[room]?.senderName ?? '') : '');

    function send(frame: ClientFrame): boolean {
      if (!connection || !open) return false;
      connection.send(encodeFrame(frame));
      return true;
    }

    function stopTimers() {
      if (retryTimer !== null) deps.clearTimeout(retryTimer);
      if (heartbeatTimer !== null) deps.clearInterval(heartbeatTimer);
      retryTimer = null;
      heartbeatTimer = null;
    }

    function teardown() {
      generation += 1;
      stopTimers();
      const closing = connection;
      connection = null;
      open = false;
      synced = false;
      if (closing) closing.close(CloseCode.Normal, 'Leaving the room');
    }

    /** typing=false, when others may still see this user typing (typing frames are rate limited). */
    function sendTypingStopped() {
      if (typingShown && send({ type: FrameType.Typing, typing: false })) typingShown = false;
    }

    /** Asks for the last messages, or for those after `after` of the room's epoch held. */
    function requestHistory(current: string, after: number | null) {
      historyAfter = after;
      const epoch = api.getState().chat.rooms[current]?.epoch ?? null;
      if (after === null) send({ type: FrameType.History, count: HISTORY_REQUEST_COUNT });
      else if (epoch === null)
        send({ type: FrameType.History, count: HISTORY_REQUEST_COUNT, after });
      else send({ type: FrameType.History, count: HISTORY_REQUEST_COUNT, after, epoch });
    }

    function sendMessage(clientId: string, body: string) {
      if (!synced || !send({ type: FrameType.Message, body, client_id: clientId })) return;
      sentOnConnection.add(clientId);
    }

    /** Sends every pending message this connection has not sent yet. */
    function flushPending(current: string) {
      const messages = api.getState().chat.rooms[current]?.messages ?? [];
      for (const message of messages) {
        if (message.status !== 'pending' || message.seq !== null || message.clientId === null) {
          continue;
        }
        if (!sentOnConnection.has(message.clientId)) sendMessage(message.clientId, message.message);
      }
    }

    function onFrame(current: string, frame: ServerFrame) {
      switch (frame.type) {
        case FrameType.Message: {
          if (frame.room !== current) return;
          if (isHistoryFrame(frame)) {
            const after = historyAfter;
            api.dispatch(
              historyReceived({
                room: current,
                messages: frame.messages,
                complete: frame.complete,
                after,
                me: me(),
                epoch: frame.epoch,
              }),
            );
            if (after !== null && frame.messages.length >= HISTORY_REQUEST_COUNT) {
              requestHistory(current, api.getState().chat.rooms[current]?.lastSeq ?? after);
              return;
            }
            synced = true;
            flushPending(current);
            return;
          }
          const own = userNameKey(frame.sender) === userNameKey(me());
          const clientId = frame.client_id ?? null;
          api.dispatch(
            messageReceived({
              room: current,
              message: {
                sender: frame.sender,
                body: frame.body,
                timestamp: frame.timestamp,
                seq: frame.seq,
              },
              clientId,
              own,
              epoch: frame.epoch,
            }),
          );
          if (!own) deps.notify(frame.sender, frame.body);
          return;
        }
        case FrameType.Typing:
          if (frame.room !== current) return;
          api.dispatch(
            typingUpdated({
              room: current,
              sender: frame.sender,
              typing: frame.typing,
              time: deps.now(),
            }),
          );
          if (frame.typing) {
            deps.setTimeout(
              () => api.dispatch(typingExpired({ room: current, now: deps.now() })),
              TYPING_STALE_MS,
            );
          }
          return;
        case FrameType.Presence:
          if (frame.room !== current) return;
          api.dispatch(
            presenceUpdated({ room: current, sender: frame.sender, active: frame.connecting }),
          );
          return;
        case FrameType.Clear:
          if (frame.room !== current) return;
          api.dispatch(roomCleared({ room: current, source: 'remote' }));
          return;
        case FrameType.Error: {
          api.dispatch(errorFrameReceived({ code: frame.code, message: frame.message }));
          // An error answering a message names it by its client_id: that message was not stored.
          if (frame.client_id !== undefined) {
            api.dispatch(messageFailed({ room: current, clientId: frame.client_id }));
          }
          return;
        }
        case FrameType.Heartbeat:
          return;
      }
    }

    function onClose(current: string, code: number) {
      stopTimers();
      connection = null;
      open = false;
      synced = false;
      api.dispatch(connectionClosed({ room: current, code }));
      const decision = decideReconnect(code, attempts, deps.random);
      switch (decision.action) {
        case 'reauthenticate':
          api.dispatch(unauthorized({ room: current, source: 'socket' }));
          return;
        case 'stop':
          api.dispatch(connectionLost({ room: current, reason: decision.reason }));
          return;
        case 'reconnect':
          attempts = decision.attempt;
          api.dispatch(
            reconnectScheduled({
              room: current,
              attempt: decision.attempt,
              delayMs: decision.delayMs,
            }),
          );
          retryTimer = deps.setTimeout(() => {
            retryTimer = null;
            connect();
          }, decision.delayMs);
      }
    }

    function connect() {
      if (room === null || token === null) return;
      const current = room;
      generation += 1;
      const mine = generation;
      const isCurrent = () => mine === generation;
      open = false;
      synced = false;
      sentOnConnection.clear();
      typingShown = false;
      api.dispatch(reconnectStarted({ room: current, attempt: attempts }));
      try {
        connection = deps.createSocket(deps.socketOrigin() + ApiPath.roomSocket(current, token), {
          onOpen: () => {
            if (!isCurrent()) return;
            open = true;
            attempts = 0;
            api.dispatch(connectionOpened({ room: current }));
            heartbeatTimer = deps.setInterval(
              () => send({ type: FrameType.Heartbeat }),
              PING_INTERVAL_MS,
            );
            requestHistory(current, api.getState().chat.rooms[current]?.lastSeq ?? null);
          },
          onMessage: (text) => {
            if (!isCurrent()) return;
            const decoded = decodeServerFrame(text);
            if (!decoded.ok) {
              console.error('Taco Chat: ignored a frame', decoded.error.message);
              return;
            }
            onFrame(current, decoded.frame);
          },
          onClose: (code) => {
            if (isCurrent()) onClose(current, code);
          },
          onError: () => {
            if (isCurrent()) console.error('Taco Chat: socket error in room', current);
          },
        });
      } catch (error) {
        console.error('Taco Chat: could not open the socket', error);
        onClose(current, CloseCode.Abnormal);
      }
    }

    return (next) => (action) => {
      const result = next(action);
      if (roomJoined.match(action)) {
        const { room: joined, token: joinedToken } = action.payload;
        if (connection && room === joined && token === joinedToken) return result;
        teardown();
        room = joined;
        token = joinedToken;
        attempts = 0;
        connect();
      } else if (roomLeft.match(action)) {
        if (room === action.payload.room) {
          teardown();
          room = null;
          token = null;
        }
      } else if (reconnectRequested.match(action)) {
        if (room === action.payload.room && connection === null) {
          stopTimers();
          attempts = 0;
          connect();
        }
      } else if (messageSent.match(action)) {
        if (room !== action.payload.room) return result;
        sendMessage(action.payload.clientId, action.payload.body);
        sendTypingStopped();
      } else if (messageRetried.match(action)) {
        if (room !== action.payload.room) return result;
        const message = api
          .getState()
          .chat.rooms[room]?.messages.find((m) => m.clientId === action.payload.clientId);
        if (message) {
          sentOnConnection.delete(action.payload.clientId);
          sendMessage(action.payload.clientId, message.message);
        }
      } else if (roomCleared.match(action)) {
        if (action.payload.source === 'local' && room === action.payload.room) {
          send({ type: FrameType.Clear });
        }
      } else if (draftEdited.match(action)) {
        if (room !== action.payload.room) return result;
        if (action.payload.empty) {
          sendTypingStopped();
        } else {
          const now = deps.now();
          if (now - lastTypingSentAt >= TYPING_THROTTLE_MS) {
            if (send({ type: FrameType.Typing, typing: true })) {
              lastTypingSentAt = now;
              typingShown = true;
            }
          }
        }
      }
      return result;
    };
  };
}
