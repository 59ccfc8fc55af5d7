import { CloseCode, FrameType } from '@taco/protocol';
import { fakeSocketDeps } from '../../test/fakeSocket';
import {
  chatMessage,
  EPOCH,
  historyFrame,
  ME,
  openAndSync,
  ROOM,
  setup,
} from '../../test/socketRoom';
import { makeStore } from '../app/store';
import { renameRequested, roomJoined } from '../features/chat/chatActions';
import { selectMessages } from '../features/messages/messagesSlice';
import { selectParticipants } from '../features/presence/presenceSlice';
import { selectConnection } from '../features/connection/connectionSlice';
import { selectFeedEvents } from '../features/feed/feedSlice';
import { selectRoomAuth } from '../features/roomAuth/roomAuthSlice';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

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
    again
      .last()
      .serverSend(
        historyFrame([
          chatMessage(1, ME, 'before'),
          chatMessage(2),
          chatMessage(3, ME, 'a newcomer'),
        ]),
      );
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
    const { present, gone } = renamedFrames('Bob', 'Bobby');
    socket.serverSend(present);
    socket.serverSend(gone);
    expect(selectParticipants(fake.store.getState(), ROOM).map((p) => [p.name, p.active])).toEqual([
      ['Bobby', true],
    ]);
    expect(selectRoomAuth(fake.store.getState(), ROOM)?.senderName).toBe(ME);
  });
});
