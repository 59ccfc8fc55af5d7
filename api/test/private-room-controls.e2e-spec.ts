import {
  ApiPath,
  CloseCode,
  CloseReason,
  ErrorCode,
  FrameErrorMessage,
  FrameType,
  NAME_REMOVED_MESSAGE,
  REMOVED_MESSAGE,
  ROOM_LOCKED_MESSAGE,
} from '@taco/protocol';
import { isError, isHistory, isPresence, type RawClient } from '@taco/harness';
import { nameForms } from '../src/bus/name-claim';
import { RoomSettingsStore } from '../src/bus/room-settings.port';
import { until } from './support/until';
import { say } from './support/chat-socket';
import { type Setup, setups, useSetup } from './support/private-rooms';

/**
 * A private room's controls over the wire (protocol/README.md §6.10–§6.13): the creator's lock,
 * removal, hand-over and disappearing messages, on each setup of support/private-rooms.ts.
 */
describe.each(setups)('Private room controls: %s', (label, start) => {
  let setup: Setup;
  let room: string;
  const { post, createRoom, enter, member, control } = useSetup(
    start,
    (next) => (setup = next),
    (next) => (room = next),
  );

  it('lets only the creator lock: newcomers refused, members keep their way in', async () => {
    const annToken = await createRoom('Ann');
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob, bobToken] = await member(setup.two, 'Bob');
    control(bob, { action: 'lock', client_id: 'l-1' });
    expect(await bob.next(isError(ErrorCode.NotCreator))).toEqual({
      type: FrameType.Error,
      code: ErrorCode.NotCreator,
      message: FrameErrorMessage.notCreator,
      client_id: 'l-1',
    });
    control(ann, { action: 'lock' });
    const locked = { locked: true, event: { action: 'lock', by: 'Ann' } };
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({ ...locked, is_creator: true });
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject({ ...locked, is_creator: false });
    for (const path of [ApiPath.roomCredentials(room), ApiPath.createRoom]) {
      expect(await post(setup.two, path, { room_id: room, sender_id: 'Dora' })).toEqual({
        status: 423,
        body: { statusCode: 423, error: 'Locked', message: ROOM_LOCKED_MESSAGE },
      });
    }
    // A member renames with its own token shown; its token still opens a socket.
    const rename = await post(
      setup.two,
      ApiPath.roomCredentials(room),
      { sender_id: 'Bobby' },
      { authorization: `Bearer ${bobToken}` },
    );
    expect(rename).toMatchObject({ status: 200, body: { sender_id: 'Bobby' } });
    const [again] = await enter(setup.one, 'Bob', bobToken);
    again.socket.close();
    // Locking a locked room changes nothing: the creator alone hears the room as it is.
    control(ann, { action: 'lock' });
    expect(await ann.nextOfType(FrameType.Room)).toEqual(
      expect.not.objectContaining({ event: expect.anything() as unknown }),
    );
    control(ann, { action: 'unlock' });
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject({
      locked: false,
      event: { action: 'unlock', by: 'Ann' },
    });
    expect(
      await post(setup.two, ApiPath.roomCredentials(room), { sender_id: 'Dora' }),
    ).toMatchObject({
      status: 200,
    });
  });

  it('removes a participant everywhere at once: sockets, tickets, tokens and the name', async () => {
    const annToken = await createRoom('Ann');
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [cleo, cleoToken] = await member(setup.two, 'Cleo');
    const otherTab = setup.one.connect(room, cleoToken);
    await otherTab.nextOfType(FrameType.Room);
    control(ann, { action: 'remove', name: 'Ann', client_id: 'r-0' });
    expect(await ann.next(isError(ErrorCode.NotPresent))).toMatchObject({ client_id: 'r-0' });
    control(ann, { action: 'remove', name: 'Nobody' });
    expect(await ann.next(isError(ErrorCode.NotPresent))).toMatchObject({
      message: FrameErrorMessage.notPresent,
    });
    control(ann, { action: 'remove', name: ' cleo ' });
    expect(await cleo.closed).toEqual({ code: CloseCode.Removed, reason: CloseReason.Removed });
    expect(await otherTab.closed).toMatchObject({ code: CloseCode.Removed });
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({
      event: { action: 'remove', by: 'Ann', name: 'Cleo' },
    });
    expect(await ann.next(isPresence('Cleo', false))).toMatchObject({ room });
    expect(
      await post(setup.two, ApiPath.roomTicket(room), undefined, {
        authorization: `Bearer ${cleoToken}`,
      }),
    ).toEqual({
      status: 403,
      body: { statusCode: 403, error: 'Forbidden', message: REMOVED_MESSAGE },
    });
    const back = setup.one.connect(room, cleoToken);
    expect(await back.closed).toEqual({ code: CloseCode.Removed, reason: CloseReason.Removed });
    for (const name of ['Cleo', 'CLEO']) {
      expect(await post(setup.two, ApiPath.roomCredentials(room), { sender_id: name })).toEqual({
        status: 403,
        body: { statusCode: 403, error: 'Forbidden', message: NAME_REMOVED_MESSAGE },
      });
    }
  });

  it('hands the creator right over, and moves it with a rename', async () => {
    const annToken = await createRoom('Ann');
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob] = await member(setup.two, 'Bob');
    control(ann, { action: 'hand_over', name: 'bob' });
    const handed = { creator: 'Bob', event: { action: 'hand_over', by: 'Ann', name: 'Bob' } };
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({ ...handed, is_creator: false });
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject({ ...handed, is_creator: true });
    control(ann, { action: 'lock', client_id: 'old' });
    expect(await ann.next(isError(ErrorCode.NotCreator))).toMatchObject({ client_id: 'old' });
    // Bob renames: the right follows his new token, and the room hears the new name.
    bob.send({ type: FrameType.Rename, token: await setup.two.token(room, 'Robert') });
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({
      creator: 'Robert',
      is_creator: false,
    });
    expect(await bob.nextOfType(FrameType.Room)).toMatchObject({
      creator: 'Robert',
      is_creator: true,
    });
    control(bob, { action: 'disappear', after: 86_400 });
    expect(await ann.nextOfType(FrameType.Room)).toMatchObject({
      disappear_after: 86_400,
      event: { action: 'disappear', by: 'Robert', after: 86_400 },
    });
    control(bob, { action: 'disappear', after: 60, client_id: 'd' });
    expect(await bob.next(isError(ErrorCode.BadFrame))).toEqual({
      type: FrameType.Error,
      code: ErrorCode.BadFrame,
      message: "Field 'after' must be one of 0, 3600, 86400, 604800",
      client_id: 'd',
    });
  });

  /** Sets both replicas' clocks `offsetMs` from now: messages are stamped then. */
  const stampAt = (offsetMs: number) => {
    for (const app of [setup.one, setup.two]) {
      app.clock.advance(Date.now() + offsetMs - app.clock.now());
    }
  };

  async function historyOf(client: RawClient): Promise<string[]> {
    client.send({ type: FrameType.History, count: 50 });
    const page = (await client.next(isHistory)) as { messages: { body: string }[] };
    return page.messages.map((message) => message.body);
  }

  /** Waits until storage itself holds `count` messages of the room (when the driver can tell). */
  async function storedIs(count: number): Promise<void> {
    const stored = setup.stored;
    if (stored) await until(async () => (await stored(room)) === count, 5000);
  }

  it('deletes disappearing messages from history and storage once expired, and on a change', async () => {
    const annToken = await createRoom('Ann', { disappear_after: 86_400 });
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob] = await member(setup.two, 'Bob');
    try {
      stampAt(-26 * 3600_000);
      await say(ann, 'said yesterday', 'm-1');
      stampAt(-2 * 3600_000);
      await say(ann, 'said two hours ago', 'm-2');
      stampAt(-30 * 60_000);
      await say(bob, 'said half an hour ago', 'm-3');
      stampAt(0);
      expect(await historyOf(bob)).toEqual(['said two hours ago', 'said half an hour ago']);
      await storedIs(2);
      // Shortened to an hour: what is two hours old goes at once, from history and from storage.
      control(ann, { action: 'disappear', after: 3600 });
      expect(await bob.nextOfType(FrameType.Room)).toMatchObject({
        disappear_after: 3600,
        event: { action: 'disappear', by: 'Ann', after: 3600 },
      });
      await storedIs(1);
      expect(await historyOf(ann)).toEqual(['said half an hour ago']);
      // Off: nothing disappears any more.
      control(ann, { action: 'disappear', after: 0 });
      await bob.nextOfType(FrameType.Room);
      stampAt(2 * 3600_000);
      await say(ann, 'said later', 'm-4');
      expect(await historyOf(bob)).toEqual(['said half an hour ago', 'said later']);
      await storedIs(2);
    } finally {
      stampAt(0);
    }
  }, 30_000);

  // Within one process a room frame cannot be missed: only the shared drivers have this case.
  if (label === 'embedded') return;

  it('closes a removed holder whose replica missed the room frame, once its subscription is back', async () => {
    const annToken = await createRoom('Ann');
    const [ann] = await enter(setup.one, 'Ann', annToken);
    const [bob] = await member(setup.two, 'Bob');
    // The removal stored, its room frame never published: as if replica two's subscription was
    // down when it went out.
    const creator = JSON.parse(
      Buffer.from(annToken.split('.')[1] ?? '', 'base64url').toString(),
    ) as { jti: string };
    const removed = await setup.one.app
      .get(RoomSettingsStore)
      .control(
        room,
        creator.jti,
        { action: 'remove', target: nameForms('Bob') },
        { holderMs: 60_000, nameMs: 60_000 },
      );
    expect(removed).toMatchObject({ done: true, target: { name: 'Bob' } });
    await setup.dropSubscribers?.();
    expect(await bob.closed).toEqual({ code: CloseCode.Removed, reason: CloseReason.Removed });
    expect(await ann.next(isPresence('Bob', false), 5000)).toMatchObject({ room });
  });
});
