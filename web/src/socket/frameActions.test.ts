import { ErrorCode, FrameType, type ServerFrame } from '@taco/protocol';
import {
  errorFrameReceived,
  historyReceived,
  participantRenamed,
  participantRenamedAway,
  messageReceived,
  presenceUpdated,
  roomCleared,
  roomFrameReceived,
  typingUpdated,
} from '../features/chat/chatActions';
import { type FrameContext, frameAction } from './frameActions';

const ROOM = 'teal-otter';
/** Bob is present; the newest message held is 41 of e1. */
const context: FrameContext = {
  room: ROOM,
  me: 'Alice',
  historyAfter: 41,
  now: 1_700_000_000_123,
  settling: false,
  isPresent: (name) => name === 'Bob',
  newest: { epoch: 'e1', seq: 41 },
};
const feedAt = context.newest;
const stored = { sender: 'Bob', body: 'hi', timestamp: 1_700_000_000.5, seq: 42 };

/** Each server frame type, and the action it becomes. */
const table: Array<[string, ServerFrame, ReturnType<typeof frameAction>]> = [
  [
    'a single message',
    { type: FrameType.Message, room: ROOM, epoch: 'e1', ...stored, client_id: 'c1' },
    messageReceived({ room: ROOM, message: stored, clientId: 'c1', me: 'Alice', epoch: 'e1' }),
  ],
  [
    'a history batch',
    { type: FrameType.Message, room: ROOM, epoch: 'e1', messages: [stored], complete: false },
    historyReceived({
      room: ROOM,
      messages: [stored],
      complete: false,
      after: 41,
      me: 'Alice',
      epoch: 'e1',
    }),
  ],
  [
    'a typing update',
    { type: FrameType.Typing, room: ROOM, sender: 'Bob', typing: true },
    typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: context.now }),
  ],
  [
    'a presence update',
    { type: FrameType.Presence, room: ROOM, sender: 'Bob', connecting: false },
    presenceUpdated({ room: ROOM, sender: 'Bob', active: false, time: context.now, feedAt }),
  ],
  [
    'a clear',
    { type: FrameType.Clear, room: ROOM, sender: 'Bob' },
    roomCleared({ room: ROOM, source: 'remote', sender: 'Bob', time: context.now, feedAt }),
  ],
  [
    'an error naming a message',
    { type: FrameType.Error, code: ErrorCode.Unavailable, message: 'Not stored', client_id: 'c1' },
    errorFrameReceived({
      room: ROOM,
      code: ErrorCode.Unavailable,
      message: 'Not stored',
      clientId: 'c1',
    }),
  ],
  [
    'an error naming none',
    { type: FrameType.Error, code: ErrorCode.BadFrame, message: 'Bad frame' },
    errorFrameReceived({
      room: ROOM,
      code: ErrorCode.BadFrame,
      message: 'Bad frame',
      clientId: null,
    }),
  ],
  ['a heartbeat', { type: FrameType.Heartbeat }, null],
  [
    'a rename: the new name with renamed_from',
    {
      type: FrameType.Presence,
      room: ROOM,
      sender: 'Bobby',
      connecting: true,
      renamed_from: 'Bob',
    },
    participantRenamed({ room: ROOM, from: 'Bob', to: 'Bobby', time: context.now, feedAt }),
  ],
  [
    'a rename: the old name gone with renamed_to',
    { type: FrameType.Presence, room: ROOM, sender: 'Bob', connecting: false, renamed_to: 'Bobby' },
    participantRenamedAway({ room: ROOM, name: 'Bob', to: 'Bobby' }),
  ],
  [
    'the room frame on joining',
    {
      type: FrameType.Room,
      room: ROOM,
      encrypted: true,
      key_check: 'kCkgsYkkv54-WIGsWY4ydg',
      locked: false,
      disappear_after: 3600,
      creator: 'Ana',
      is_creator: false,
    },
    roomFrameReceived({
      room: ROOM,
      encrypted: true,
      keyCheck: 'kCkgsYkkv54-WIGsWY4ydg',
      locked: false,
      disappearAfter: 3600,
      creator: 'Ana',
      isCreator: false,
      time: context.now,
      feedAt,
    }),
  ],
  [
    'the room frame of a server older than key_check: the check not told',
    {
      type: FrameType.Room,
      room: ROOM,
      encrypted: true,
      locked: false,
      disappear_after: 0,
      creator: null,
      is_creator: false,
    },
    roomFrameReceived({
      room: ROOM,
      encrypted: true,
      locked: false,
      disappearAfter: 0,
      creator: null,
      isCreator: false,
      time: context.now,
      feedAt,
    }),
  ],
  [
    'the room frame of a change',
    {
      type: FrameType.Room,
      room: ROOM,
      encrypted: false,
      key_check: null,
      locked: false,
      disappear_after: 0,
      creator: 'Bob',
      is_creator: true,
      event: { action: 'hand_over', by: 'Ana', name: 'Bob' },
    },
    roomFrameReceived({
      room: ROOM,
      encrypted: false,
      keyCheck: null,
      locked: false,
      disappearAfter: 0,
      creator: 'Bob',
      isCreator: true,
      event: { action: 'hand_over', by: 'Ana', name: 'Bob' },
      time: context.now,
      feedAt,
    }),
  ],
];

describe('frame → action table', () => {
  it.each(table)('%s', (_name, frame, expected) => {
    expect(frameAction(frame, context)).toEqual(expected);
  });

  it('covers every frame type the server sends', () => {
    const covered = new Set(table.map(([, frame]) => frame.type));
    // Every type but 5 (a history request) and 8 (a rename), which only a client sends.
    const serverTypes = Object.values(FrameType).filter(
      (type) => type !== FrameType.History && type !== FrameType.Rename,
    );
    expect([...covered].sort()).toEqual(serverTypes.sort());
  });

  it("leaves telling own messages to the messages slice: a message carries the user's names", () => {
    const formerNames = [{ name: 'Ali', epoch: 'e1', upToSeq: 3 }];
    const own = { type: FrameType.Message, room: ROOM, epoch: 'e1', ...stored, sender: 'alice ' };
    expect(frameAction(own, { ...context, formerNames })).toMatchObject({
      payload: { me: 'Alice', formerNames, clientId: null },
    });
  });

  it('makes a presence frame a feed line only when it changes who is present, after the roster', () => {
    const presence = (sender: string, connecting: boolean): ServerFrame => ({
      type: FrameType.Presence,
      room: ROOM,
      sender,
      connecting,
    });
    const lineOf = (frame: ServerFrame, settling = false) =>
      (frameAction(frame, { ...context, settling }) as ReturnType<typeof presenceUpdated>).payload
        .feedAt;
    expect(lineOf(presence('Cy', true))).toEqual(feedAt);
    expect(lineOf(presence('Bob', false))).toEqual(feedAt);
    // No change: Bob is here already, Cy is not.
    expect(lineOf(presence('Bob', true))).toBeUndefined();
    expect(lineOf(presence('Cy', false))).toBeUndefined();
    // The roster a connecting socket gets.
    expect(lineOf(presence('Cy', true), true)).toBeUndefined();
    // A rename into a name present already: another tab of the user's renamed first.
    const rename = { ...presence('Bob', true), renamed_from: 'Alice' };
    expect(lineOf(rename)).toBeUndefined();
  });

  it('answers the first history request with after null', () => {
    const frame: ServerFrame = {
      type: FrameType.Message,
      room: ROOM,
      epoch: 'e1',
      messages: [],
      complete: true,
    };
    expect(frameAction(frame, { ...context, historyAfter: null })).toMatchObject({
      payload: { after: null, complete: true },
    });
  });

  it('turns frames about another room into nothing', () => {
    for (const [, frame] of table) {
      if ('room' in frame) expect(frameAction({ ...frame, room: 'red-fox' }, context)).toBeNull();
    }
  });
});
