import { CloseCode, FrameType, type ServerFrame } from '@taco/protocol';
import { roomCipher } from '@taco/protocol/e2e-crypto';
import { messageSent, roomControlSent, roomKeyFound } from '../features/chat/chatActions';
import { selectMessages } from '../features/messages/messagesSlice';
import { selectRemoved, selectRoomAuth } from '../features/roomAuth/roomAuthSlice';
import { selectRoomSettings } from '../features/roomSettings/roomSettingsSlice';
import { chatMessage, EPOCH, ME, ROOM, setup } from '../../test/socketRoom';

// The key of protocol/README.md §6.12's test vectors.
const KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const OTHER_KEY = 'BBECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';

const roomFrame = (overrides: Partial<Extract<ServerFrame, { type: 9 }>> = {}): ServerFrame => ({
  type: FrameType.Room,
  room: ROOM,
  encrypted: true,
  locked: false,
  disappear_after: 0,
  creator: 'Bob',
  is_creator: false,
  ...overrides,
});

/** Lets the decryption (WebCrypto, promises) finish. */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** A store in an encrypted room holding `key`, its socket open and told the room's settings. */
function encryptedRoom(key: string | null = KEY) {
  const fake = setup();
  if (key !== null) fake.store.dispatch(roomKeyFound({ room: ROOM, key }));
  const socket = fake.last();
  socket.serverOpen();
  socket.serverSend(roomFrame());
  return { ...fake, socket };
}

describe('socket middleware: end-to-end encrypted rooms', () => {
  it('decrypts history and live messages for the feed; bodies that do not open are marked', async () => {
    const { store, socket } = encryptedRoom();
    const cipher = await roomCipher(KEY, ROOM);
    const stranger = await roomCipher(OTHER_KEY, ROOM);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [
        chatMessage(1, 'Bob', await cipher.encrypt('hello **Alice**')),
        chatMessage(2, 'Cy', await stranger.encrypt('you cannot read this')),
      ],
      complete: true,
    });
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(3, 'Bob', await cipher.encrypt('live 🌮')),
    });
    await settle();
    const messages = selectMessages(store.getState(), ROOM);
    expect(messages.map((m) => [m.senderName, m.message, m.undecryptable ?? false])).toEqual([
      ['Bob', 'hello **Alice**', false],
      ['Cy', '', true],
      ['Bob', 'live 🌮', false],
    ]);
  });

  it('keeps frames in order while bodies are decrypted', async () => {
    const { store, socket } = encryptedRoom();
    const cipher = await roomCipher(KEY, ROOM);
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [chatMessage(1, 'Bob', await cipher.encrypt('first'))],
      complete: true,
    });
    // A clear right behind the history answer: it must empty the feed after the answer landed.
    socket.serverSend({ type: FrameType.Clear, room: ROOM, sender: 'Bob' });
    await settle();
    expect(selectMessages(store.getState(), ROOM)).toEqual([]);
  });

  it('marks every body as unreadable without the key, never showing the ciphertext', async () => {
    const { store, socket } = encryptedRoom(null);
    const body = await (await roomCipher(KEY, ROOM)).encrypt('secret');
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [chatMessage(1, 'Bob', body)],
      complete: true,
    });
    await settle();
    const [message] = selectMessages(store.getState(), ROOM);
    expect(message).toMatchObject({ message: '', undecryptable: true });
  });

  it('sends an own message encrypted with the room key, and shows its text at once', async () => {
    const { store, socket } = encryptedRoom();
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [],
      complete: true,
    });
    await settle();
    socket.sent.length = 0;
    store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'hi there', senderName: ME, timestamp: 1 }),
    );
    expect(selectMessages(store.getState(), ROOM).at(-1)?.message).toBe('hi there');
    await settle();
    const frames = socket.sent as Array<{ type: number; body: string; client_id: string }>;
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ type: FrameType.Message, client_id: 'c1' });
    expect(frames[0]!.body).toMatch(/^e1\./);
    expect(await (await roomCipher(KEY, ROOM)).decrypt(frames[0]!.body)).toBe('hi there');
    // The echo replaces the pending message with the stored one, its text decrypted.
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      ...chatMessage(1, ME, frames[0]!.body),
      client_id: 'c1',
    });
    await settle();
    expect(selectMessages(store.getState(), ROOM)).toEqual([
      expect.objectContaining({ message: 'hi there', seq: 1, status: 'sent' }),
    ]);
  });

  it('sends plain bodies in a plain room', () => {
    const { store, socket } = encryptedRoom();
    socket.serverSend(roomFrame({ encrypted: false }));
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [],
      complete: true,
    });
    socket.sent.length = 0;
    store.dispatch(
      messageSent({ room: ROOM, clientId: 'c1', body: 'plain', senderName: ME, timestamp: 1 }),
    );
    expect(socket.sent).toEqual([{ type: FrameType.Message, body: 'plain', client_id: 'c1' }]);
  });
});

describe('socket middleware: the room frame and the creator', () => {
  it('keeps the settings and the creator from the room frame', () => {
    const { store, socket } = encryptedRoom();
    socket.serverSend(roomFrame({ locked: true, disappear_after: 3600, is_creator: true }));
    expect(selectRoomSettings(store.getState(), ROOM)).toMatchObject({
      encrypted: true,
      locked: true,
      disappearAfter: 3600,
      creator: 'Bob',
      isCreator: true,
    });
  });

  it('sends control frames for the creator', () => {
    const { store, socket } = encryptedRoom();
    socket.sent.length = 0;
    store.dispatch(roomControlSent({ room: ROOM, control: { action: 'lock' } }));
    store.dispatch(roomControlSent({ room: ROOM, control: { action: 'remove', name: 'Cy' } }));
    store.dispatch(roomControlSent({ room: ROOM, control: { action: 'disappear', after: 60 } }));
    expect(socket.sent).toEqual([
      { type: FrameType.Room, action: 'lock' },
      { type: FrameType.Room, action: 'remove', name: 'Cy' },
      { type: FrameType.Room, action: 'disappear', after: 60 },
    ]);
  });
});

describe('socket middleware: removed from the room (close 4403)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('stops for good, drops the token and says the user was removed', () => {
    const { store, socket, sockets } = encryptedRoom();
    const seen: string[] = [];
    store.subscribe(() => seen.push(String(selectRemoved(store.getState(), ROOM))));
    socket.serverClose(CloseCode.Removed);
    jest.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(selectRemoved(store.getState(), ROOM)).toBe(true);
    expect(selectRoomAuth(store.getState(), ROOM)).toMatchObject({
      token: '',
      authenticated: false,
      senderName: ME,
    });
    expect(seen).toContain('true');
  });

  it('takes a refused ticket (403) for a removal too', async () => {
    const fetchTicket = jest.fn(() => Promise.resolve({ status: 403 }));
    const fake = setup({ fetchTicket });
    await Promise.resolve();
    await Promise.resolve();
    expect(fake.sockets).toHaveLength(0);
    expect(selectRemoved(fake.store.getState(), ROOM)).toBe(true);
    jest.advanceTimersByTime(60_000);
    expect(fetchTicket).toHaveBeenCalledTimes(1);
  });
});
