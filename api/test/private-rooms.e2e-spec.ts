import {
  ApiPath,
  CloseCode,
  E2E_BODY_MAX_LENGTH,
  ErrorCode,
  FrameErrorMessage,
  FrameType,
  ROOM_EXISTS_MESSAGE,
  type RoomInfoResponse,
} from '@taco/protocol';
import { roomCipher } from '@taco/protocol/e2e-crypto';
import { isError, isHistory, isLive } from '@taco/harness';
import { roomSettings } from './support/room-settings';
import { KEY, type Setup, setups, useSetup } from './support/private-rooms';

/**
 * Private rooms over the wire (protocol/README.md §2.2–§2.6, §5, §6.9): a room created with its
 * settings, and encrypted rooms, on each setup of support/private-rooms.ts.
 */
describe.each(setups)('Private rooms: %s', (_label, start) => {
  let setup: Setup;
  let room: string;
  const { post, createRoom, enter, member, control } = useSetup(
    start,
    (next) => (setup = next),
    (next) => (room = next),
  );

  it('creates a room with its settings once, and tells everyone who asks what it is', async () => {
    const settings = {
      encrypted: true,
      key_check: 'kCkgsYkkv54-WIGsWY4ydg',
      disappear_after: 86_400,
    };
    expect(
      await post(setup.one, ApiPath.createRoom, { room_id: room, sender: ' Ann ', ...settings }),
    ).toEqual({
      status: 201,
      body: {
        name: 'Ann',
        room,
        token: expect.any(String) as unknown,
        creator: true,
        settings: roomSettings({ ...settings, creator: 'Ann' }),
      },
    });
    // Settings are the creator's: a latecomer asking for some is refused, one without joins.
    expect(
      await post(setup.two, ApiPath.createRoom, { room_id: room, sender: 'Bob', ...settings }),
    ).toEqual({
      status: 409,
      body: { statusCode: 409, error: 'Conflict', message: ROOM_EXISTS_MESSAGE },
    });
    expect(
      await post(setup.two, ApiPath.createRoom, { room_id: room, sender: 'Bob' }),
    ).toMatchObject({
      status: 201,
      body: { name: 'Bob', creator: false, settings: { encrypted: true, creator: 'Ann' } },
    });
    const info = await fetch(`${setup.two.baseUrl}${ApiPath.roomInfo(room)}`);
    expect((await info.json()) as RoomInfoResponse).toEqual({
      room_id: room,
      participants: 0,
      settings: roomSettings(settings),
    });
    const unknown = await fetch(`${setup.two.baseUrl}${ApiPath.roomInfo(`${room}-none`)}`);
    expect(await unknown.json()).toMatchObject({ settings: null });
  });

  it.each<[string, object, string]>([
    [
      'encrypted that is not a boolean',
      { encrypted: 'yes' },
      "Field 'encrypted' must be true or false",
    ],
    [
      'encrypted without a key check',
      { encrypted: true },
      'An encrypted room needs a key check of 22 base64url characters',
    ],
    [
      'a key check of the wrong shape',
      { encrypted: true, key_check: 'short' },
      'An encrypted room needs a key check of 22 base64url characters',
    ],
    [
      'a disappearing time not offered',
      { disappear_after: 60 },
      "Field 'disappear_after' must be one of 0, 3600, 86400, 604800",
    ],
  ])('refuses a create with %s, and makes nothing', async (_what, settings, message) => {
    expect(
      await post(setup.one, ApiPath.createRoom, { room_id: room, sender: 'Ann', ...settings }),
    ).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: [message] },
    });
    const info = await fetch(`${setup.one.baseUrl}${ApiPath.roomInfo(room)}`);
    expect(await info.json()).toMatchObject({ settings: null });
  });

  it('stores and relays only ciphertext in an encrypted room, history and the largest included', async () => {
    const cipher = await roomCipher(KEY, room);
    const annToken = await createRoom('Ann', { encrypted: true, key_check: cipher.keyCheck });
    const [ann, annRoom] = await enter(setup.one, 'Ann', annToken);
    expect(annRoom).toEqual({
      type: FrameType.Room,
      room,
      encrypted: true,
      key_check: cipher.keyCheck,
      locked: false,
      disappear_after: 0,
      creator: 'Ann',
      is_creator: true,
    });
    const bobToken = await setup.two.token(room, 'Bob');
    const [bob, bobRoom] = await enter(setup.two, 'Bob', bobToken);
    expect(bobRoom).toMatchObject({ encrypted: true, key_check: cipher.keyCheck });
    ann.send({ type: FrameType.Message, body: 'hello in the clear', client_id: 'p-1' });
    expect(await ann.next(isError(ErrorCode.EncryptedRoom))).toEqual({
      type: FrameType.Error,
      code: ErrorCode.EncryptedRoom,
      message: FrameErrorMessage.encryptedRoom,
      client_id: 'p-1',
    });
    const body = await cipher.encrypt('hello, taco 🌮');
    ann.send({ type: FrameType.Message, body, client_id: 'c-1' });
    expect(await bob.next(isLive)).toMatchObject({ body, sender: 'Ann' });
    expect(await cipher.decrypt(body)).toBe('hello, taco 🌮');
    // The longest text's ciphertext: a frame over 16 KiB, within the encrypted room's 24 KiB.
    const longest = await cipher.encrypt('🌮'.repeat(4000));
    expect(longest.length).toBe(E2E_BODY_MAX_LENGTH);
    bob.send({ type: FrameType.Message, body: longest, client_id: 'c-2' });
    const fromBob = await ann.next((frame) => isLive(frame) && frame.sender === 'Bob');
    expect(fromBob).toMatchObject({ body: longest });
    const [reader] = await member(setup.two, 'Cleo');
    reader.send({ type: FrameType.History, count: 10 });
    const history = await reader.next(isHistory);
    expect(history).toMatchObject({ messages: [{ body }, { body: longest }] });
  });

  it('tells the key check in every room frame, a change’s on the other replica too', async () => {
    const { keyCheck } = await roomCipher(KEY, room);
    const annToken = await createRoom('Ann', { encrypted: true, key_check: keyCheck });
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob] = await member(setup.two, 'Bob');
    control(ann, { action: 'lock' });
    const change = { encrypted: true, key_check: keyCheck, event: { action: 'lock', by: 'Ann' } };
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject(change);
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject(change);
    // A control that changes nothing is answered with the room frame alone: it carries it too.
    control(ann, { action: 'lock' });
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({ key_check: keyCheck });
  });

  it('refuses a ciphertext in a plain room, and a frame over 16 KiB there', async () => {
    const cipher = await roomCipher(KEY, room);
    const token = await setup.one.token(room, 'Ann');
    const [ann, annRoom] = await enter(setup.one, 'Ann', token);
    // A plain room, created or not, tells its key check as null.
    expect(annRoom).toMatchObject({ encrypted: false, key_check: null });
    ann.send({ type: FrameType.Message, body: await cipher.encrypt('secret'), client_id: 'x' });
    expect(await ann.next(isError(ErrorCode.PlainRoom))).toMatchObject({
      message: FrameErrorMessage.plainRoom,
      client_id: 'x',
    });
    ann.send({ type: FrameType.Message, body: 'x'.repeat(17_000) });
    expect(await ann.closed).toMatchObject({ code: CloseCode.TooBig });
  });
});
