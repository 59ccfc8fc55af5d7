import type { UnknownAction } from '@reduxjs/toolkit';
import { FrameType, isHistoryFrame, type ServerFrame } from '@taco/protocol';
import {
  errorFrameReceived,
  type FormerName,
  historyReceived,
  messageReceived,
  type MessagePoint,
  participantRenamed,
  participantRenamedAway,
  presenceUpdated,
  type ReceivedMessage,
  roomCleared,
  roomFrameReceived,
  typingUpdated,
} from '../features/chat/chatActions';

/** What turning a frame into an action needs to know besides the frame. */
export interface FrameContext {
  /** The room the socket is for. */
  room: string;
  /** The user's name in that room, to tell own messages. */
  me: string;
  /** The user's former names in the room, whose earlier messages are own too. */
  formerNames?: readonly FormerName[];
  /** `after` of the history request an answer would answer (`null`: the last messages). */
  historyAfter: number | null;
  /** Milliseconds since the epoch. */
  now: number;
  /** Whether presence frames are still the roster of the socket's opening (`selectSettling`). */
  settling: boolean;
  /** Whether a name is present now, before the frame (`selectIsPresent`). */
  isPresent: (name: string) => boolean;
  /** The newest message held, where a feed line goes (`selectNewestHeld`). */
  newest: MessagePoint;
}

type FrameOf<T extends ServerFrame['type']> = Extract<ServerFrame, { type: T }>;

/** The action each server frame type becomes (`null`: none). */
const frameTable: {
  [T in ServerFrame['type']]: (frame: FrameOf<T>, context: FrameContext) => UnknownAction | null;
} = {
  [FrameType.Message]: (frame, { room, me, formerNames, historyAfter }) =>
    isHistoryFrame(frame)
      ? historyReceived({
          room,
          messages: frame.messages,
          complete: frame.complete,
          after: historyAfter,
          me,
          formerNames,
          epoch: frame.epoch,
        })
      : messageReceived({
          room,
          message: {
            sender: frame.sender,
            body: frame.body,
            timestamp: frame.timestamp,
            seq: frame.seq,
            // An encrypted room's body that did not open (the socket decrypts before this).
            ...((frame as ReceivedMessage).undecryptable === true ? { undecryptable: true } : {}),
          },
          clientId: frame.client_id ?? null,
          me,
          formerNames,
          epoch: frame.epoch,
        }),
  [FrameType.Typing]: (frame, { room, now }) =>
    typingUpdated({ room, sender: frame.sender, typing: frame.typing, time: now }),
  [FrameType.Presence]: (frame, { room, now, settling, isPresent, newest }) => {
    // A rename: the new name arrives with `renamed_from`, the old one leaves with `renamed_to`.
    if (frame.connecting && frame.renamed_from !== undefined) {
      // Into a name already here: another tab of this browser renamed first, and said so.
      const feedAt = isPresent(frame.sender) ? {} : { feedAt: newest };
      return participantRenamed({
        room,
        from: frame.renamed_from,
        to: frame.sender,
        time: now,
        ...feedAt,
      });
    }
    if (!frame.connecting && frame.renamed_to !== undefined) {
      return participantRenamedAway({ room, name: frame.sender, to: frame.renamed_to });
    }
    const news = !settling && isPresent(frame.sender) !== frame.connecting;
    return presenceUpdated({
      room,
      sender: frame.sender,
      active: frame.connecting,
      time: now,
      ...(news ? { feedAt: newest } : {}),
    });
  },
  [FrameType.Clear]: (frame, { room, now, newest }) =>
    roomCleared({ room, source: 'remote', sender: frame.sender, time: now, feedAt: newest }),
  [FrameType.Error]: (frame, { room }) =>
    errorFrameReceived({
      room,
      code: frame.code,
      message: frame.message,
      clientId: frame.client_id ?? null,
    }),
  [FrameType.Heartbeat]: () => null,
  [FrameType.Room]: (frame, { room, now, newest }) =>
    roomFrameReceived({
      room,
      encrypted: frame.encrypted,
      // A server older than the field does not tell it: the check held stays (§6.9).
      ...(frame.key_check !== undefined ? { keyCheck: frame.key_check } : {}),
      locked: frame.locked,
      disappearAfter: frame.disappear_after,
      creator: frame.creator,
      isCreator: frame.is_creator,
      ...(frame.event ? { event: frame.event } : {}),
      time: now,
      feedAt: newest,
    }),
};

/** The action a frame from the server becomes; frames about another room become none. */
export function frameAction(frame: ServerFrame, context: FrameContext): UnknownAction | null {
  if ('room' in frame && frame.room !== context.room) return null;
  const toAction = frameTable[frame.type] as (
    frame: ServerFrame,
    context: FrameContext,
  ) => UnknownAction | null;
  return toAction(frame, context);
}
