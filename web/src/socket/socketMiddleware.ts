import type { Middleware, UnknownAction } from '@reduxjs/toolkit';
import {
  ApiPath,
  CloseCode,
  type ClientFrame,
  ErrorCode,
  FrameType,
  HISTORY_REQUEST_COUNT,
  isSameUserName,
  type ReconnectDecision,
  type ServerFrame,
  TYPING_STALE_MS,
} from '@taco/protocol';
import type { RoomCipher } from '@taco/protocol/e2e-crypto';
import {
  connectionClosed,
  connectionLost,
  connectionOpened,
  draftEdited,
  errorFrameReceived,
  historyReceived,
  messageFailed,
  messageReceived,
  messageRetried,
  messageSealed,
  messageSent,
  type ReceivedMessage,
  participantRenamed,
  reconnectRequested,
  reconnectScheduled,
  reconnectStarted,
  renamed,
  renameRequested,
  roomCleared,
  roomJoined,
  roomControlSent,
  roomLeft,
  typingExpired,
  typingUpdated,
} from '../features/chat/chatActions';
import {
  isOwn,
  type MessagesState,
  selectNewestHeld,
  selectPendingMessages,
  selectResumePoint,
  selectStoredMessage,
  selectUnsentMessage,
} from '../features/messages/messagesSlice';
import {
  nameRefused,
  type RoomAuthState,
  selectRoomAuth,
  selectRoomKey,
  unauthorized,
} from '../features/roomAuth/roomAuthSlice';
import { loadE2eCrypto, roomCipherFor } from '../features/e2e/roomCiphers';
import {
  type RoomSettingsState,
  selectRoomSettings,
} from '../features/roomSettings/roomSettingsSlice';
import { selectMentionNames } from '../features/messages/mentionNames';
import { type NotifyPrefsState, selectNotifyMode } from '../features/notifyPrefs/notifyPrefsSlice';
import {
  type PresenceState,
  selectIsPresent,
  selectSettling,
} from '../features/presence/presenceSlice';
import type { TypingState } from '../features/typing/typingSlice';
import { frameAction } from './frameActions';
import { notificationTag } from './notifications';
import { Outbox, TypingSignal } from './outbox';
import { createReconnectMachine } from './reconnectMachine';
import { RoomSocket } from './roomSocket';
import type { SocketDeps } from './socketDeps';

interface SocketState {
  messages: MessagesState;
  presence: PresenceState;
  typing: TypingState;
  roomAuth: RoomAuthState;
  notifyPrefs: NotifyPrefsState;
  roomSettings: RoomSettingsState;
}

/** The ticket call's refusal as the close it stands for. */
function ticketRefusal(status: number): number {
  if (status === 401) return CloseCode.Unauthorized;
  return status === 403 ? CloseCode.Removed : CloseCode.Abnormal;
}

/** What the page learns when the socket closed and the reconnect machine decided. */
function closeOutcome(room: string, code: number, decision: ReconnectDecision): UnknownAction {
  switch (decision.action) {
    case 'reconnect':
      return reconnectScheduled({ room, attempt: decision.attempt, delayMs: decision.delayMs });
    case 'reauthenticate':
      return code === CloseCode.NameTaken
        ? nameRefused({ room })
        : unauthorized({ room, source: 'socket' });
    case 'stop':
      return connectionLost({ room, reason: decision.reason });
  }
}

/**
 * Owns the one WebSocket of the tab: opens it when a room is joined and closes it when the room
 * is left, reconnects by the reconnect machine, turns frames into actions (`frameAction`) and
 * the user's actions into frames (`Outbox`, `TypingSignal`), and resumes history after the
 * messages slice's resume point (`selectResumePoint`). It reads the state a frame's action
 * needs (the user's names, who is present, the newest message held) before dispatching it.
 */
export function createSocketMiddleware(deps: SocketDeps): Middleware<object, SocketState> {
  return (api) => {
    let target: { room: string; token: string } | null = null;
    let socket: RoomSocket | null = null;
    /** `after` of the history request waiting for its answer (`null`: the last messages). */
    let historyAfter: number | null = null;
    const send = (frame: ClientFrame) => socket?.send(frame) ?? false;
    const outbox = new Outbox(send, () => (target ? outgoing(target.room) : []), deps);

    /**
     * The room's cipher when it is end-to-end encrypted (`null` inside: no key held), else
     * `null`: its bodies go out encrypted and come in decrypted.
     */
    function cipherOf(room: string): Promise<RoomCipher | null> | null {
      const state = api.getState();
      if (!selectRoomSettings(state, room).encrypted) return null;
      const key = selectRoomKey(state, room);
      return key ? roomCipherFor(room, key).catch(() => null) : Promise.resolve(null);
    }

    /** The own messages to send, in order; in an encrypted room the sealed ones, up to one not. */
    function outgoing(room: string) {
      const state = api.getState();
      const pending = selectPendingMessages(state, room);
      if (!selectRoomSettings(state, room).encrypted) return pending;
      const sealed = [];
      for (const { clientId, wire } of pending) {
        if (wire === undefined) break;
        sealed.push({ clientId, message: wire });
      }
      return sealed;
    }

    /** Frames waiting for their bodies to be decrypted: later frames wait behind them, in order. */
    let inbox: Promise<void> = Promise.resolve();
    let inboxWaiting = 0;
    const typing = new TypingSignal(send, deps);
    /** A rename sent on this connection and not confirmed yet. */
    let pendingRename: { name: string; token: string } | null = null;
    const reconnect = createReconnectMachine(deps, (attempt) => connect(attempt));

    /** Asks for the last messages, or for those after `after` in the room's epoch. */
    function requestHistory(room: string, after: number | null) {
      historyAfter = after;
      const { epoch } = selectResumePoint(api.getState(), room);
      const count = HISTORY_REQUEST_COUNT;
      if (after === null) send({ type: FrameType.History, count });
      else if (epoch === null) send({ type: FrameType.History, count, after });
      else send({ type: FrameType.History, count, after, epoch });
    }

    /** Counts connection attempts, so an answer for an older one is ignored. */
    let attempts = 0;

    function connect(attempt: number) {
      if (target === null) return;
      const current = target;
      const { room, token } = current;
      const mine = ++attempts;
      outbox.reset();
      typing.reset();
      pendingRename = null;
      api.dispatch(reconnectStarted({ room, attempt }));
      if (!deps.fetchTicket) {
        open(room, ApiPath.roomSocket(room, token));
        return;
      }
      void deps.fetchTicket(room, token).then((result) => {
        // Left, joined elsewhere or tried again meanwhile: this attempt is over.
        if (target !== current || mine !== attempts) return;
        if ('ticket' in result) open(room, ApiPath.roomSocketWithTicket(room, result.ticket));
        // Refused: the token is no good (like a 4401 close), or its holder was removed (like a
        // 4403 close); anything else is a failed attempt.
        else closed(room, ticketRefusal(result.status));
      });
    }

    function open(room: string, path: string) {
      const opened: RoomSocket = new RoomSocket(deps, deps.socketOrigin() + path, room, {
        opened: () => {
          reconnect.opened();
          api.dispatch(connectionOpened({ room }));
          requestHistory(room, selectResumePoint(api.getState(), room).after);
        },
        frame: (frame) => received(opened, room, frame),
        closed: (code) => {
          socket = null;
          closed(room, code);
        },
      });
      socket = opened;
    }

    function closed(room: string, code: number) {
      api.dispatch(connectionClosed({ room, code }));
      api.dispatch(closeOutcome(room, code, reconnect.closed(code)));
    }

    /** A frame of `from`: handled at once, or after the bodies of an encrypted room are opened. */
    function received(from: RoomSocket, room: string, frame: ServerFrame) {
      const cipher = frame.type === FrameType.Message ? cipherOf(room) : null;
      if (cipher === null && inboxWaiting === 0) {
        onFrame(room, frame);
        return;
      }
      inboxWaiting++;
      inbox = inbox
        .then(async () => {
          const ready =
            cipher === null ? frame : await (await loadE2eCrypto()).openFrame(frame, await cipher);
          // The socket closed meanwhile: what it said is over.
          if (socket === from) onFrame(room, ready);
        })
        .catch((error: unknown) => console.error('Taco Chat: a frame could not be read', error))
        .finally(() => inboxWaiting--);
    }

    /** An own message of an encrypted room: encrypted, then sent when its turn comes. */
    function seal(
      room: string,
      clientId: string,
      body: string,
      cipher: Promise<RoomCipher | null>,
    ) {
      void cipher
        .then((opened) => opened?.encrypt(body))
        .then((wire) => {
          if (wire === undefined) return;
          api.dispatch(messageSealed({ room, clientId, wire }));
          if (target?.room === room) outbox.send();
        });
    }

    function onFrame(room: string, frame: ServerFrame) {
      const state = api.getState();
      const auth = selectRoomAuth(state, room);
      const me = auth?.senderName ?? '';
      const action = frameAction(frame, {
        room,
        me,
        formerNames: auth?.formerNames,
        historyAfter,
        now: deps.now(),
        settling: selectSettling(state, room),
        isPresent: (name) => selectIsPresent(state, room, name),
        newest: selectNewestHeld(state, room),
      });
      if (action === null) return;
      api.dispatch(action);
      if (historyReceived.match(action)) {
        // A full page of a resume: ask for the next; otherwise history caught up.
        const { after, messages } = action.payload;
        if (after !== null && messages.length >= HISTORY_REQUEST_COUNT) {
          requestHistory(room, selectResumePoint(api.getState(), room).after ?? after);
        } else {
          outbox.flush();
        }
      } else if (messageReceived.match(action)) {
        const { clientId, message } = action.payload;
        if (clientId !== null) outbox.settled(clientId);
        const stored = selectStoredMessage(api.getState(), room, message.seq);
        if (stored && !isOwn(stored)) notify(room, me, message);
      } else if (errorFrameReceived.match(action)) {
        const { clientId, code } = action.payload;
        if (clientId !== null && code === ErrorCode.RateLimited && !outbox.refused(clientId)) {
          api.dispatch(messageFailed({ room, clientId }));
        }
      } else if (participantRenamed.match(action)) {
        const mine = pendingRename;
        const { from, to } = action.payload;
        if (mine && isSameUserName(from, me) && mine.name === to && target) {
          pendingRename = null;
          // The connection is the new name's already: joining with its token changes nothing.
          target = { room, token: mine.token };
          api.dispatch(renamedFrom(room, from, to, mine.token));
        }
      } else if (typingUpdated.match(action) && action.payload.typing) {
        const expire = () => api.dispatch(typingExpired({ room, now: deps.now() }));
        deps.setTimeout(expire, TYPING_STALE_MS);
      }
    }

    /** The user is `name` in `room` now, and was `from` up to the newest message held there. */
    function renamedFrom(room: string, from: string, name: string, token: string) {
      const { seq, epoch } = selectNewestHeld(api.getState(), room);
      const former = seq !== null && epoch ? { name: from, epoch, upToSeq: seq } : undefined;
      return renamed({ room, name, token, former });
    }

    /**
     * A browser notification for someone else's message, as the room's bell allows. Whether it
     * mentions the user takes the Markdown parser, loaded only then: the first load stays light.
     */
    function notify(room: string, me: string, message: ReceivedMessage) {
      const state = api.getState();
      const mode = selectNotifyMode(state, room);
      if (mode === 'off' || message.undecryptable === true) return;
      const show = () => deps.notify(message.sender, message.body, notificationTag(room));
      if (mode !== 'mentions') {
        show();
        return;
      }
      const names = selectMentionNames(state, room);
      void import('../features/messages/mentions').then(({ mentionsUser }) => {
        if (mentionsUser(message.body, me, names)) show();
      });
    }

    function leave() {
      reconnect.stop();
      socket?.close();
      socket = null;
    }

    return (next) => (action) => {
      const result = next(action);
      const room = target?.room;
      if (roomJoined.match(action)) {
        const { room: joined, token } = action.payload;
        const live = reconnect.phase === 'connecting' || reconnect.phase === 'open';
        if (live && room === joined && target?.token === token) return result;
        leave();
        target = { room: joined, token };
        reconnect.start();
      } else if (roomLeft.match(action)) {
        if (room !== action.payload.room) return result;
        leave();
        target = null;
      } else if (reconnectRequested.match(action)) {
        if (room === action.payload.room) reconnect.retry();
      } else if (messageSent.match(action)) {
        if (room !== action.payload.room) return result;
        const cipher = cipherOf(room);
        if (cipher === null) outbox.send();
        else seal(room, action.payload.clientId, action.payload.body, cipher);
        typing.stopped();
      } else if (roomControlSent.match(action)) {
        if (room !== action.payload.room) return result;
        if (send({ type: FrameType.Room, ...action.payload.control })) outbox.spend();
      } else if (messageRetried.match(action)) {
        if (room !== action.payload.room) return result;
        const message = selectUnsentMessage(api.getState(), room, action.payload.clientId);
        if (message) outbox.resend(message.clientId);
      } else if (roomCleared.match(action)) {
        if (action.payload.source === 'local' && room === action.payload.room) {
          if (send({ type: FrameType.Clear })) outbox.spend();
        }
      } else if (renameRequested.match(action)) {
        const { room: renaming, name, token } = action.payload;
        if (room === renaming && send({ type: FrameType.Rename, token })) {
          outbox.spend();
          pendingRename = { name, token };
        } else {
          // No open connection in that room to carry it: the next one joins under the new name.
          const from = selectRoomAuth(api.getState(), renaming)?.senderName;
          if (from) api.dispatch(renamedFrom(renaming, from, name, token));
        }
      } else if (draftEdited.match(action)) {
        if (room === action.payload.room) typing.edited(action.payload.text === '');
      }
      return result;
    };
  };
}
