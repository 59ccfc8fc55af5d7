import {
  ApiPath,
  CloseCode,
  ErrorCode,
  type ErrorFrame,
  FrameErrorMessage,
  FrameType,
  NAME_TAKEN_MESSAGE,
  type ServerFrame,
} from '@taco/protocol';
import { RoomTokenService } from '../src/rooms/room-token.service';
import { isPresence } from '@taco/harness';
import { roomNames, say } from './support/chat-socket';
import { useTestApp } from './support/test-app';

describe('Chat socket', () => {
  const t = useTestApp();
  const newRoom = roomNames();

  describe('one holder per name', () => {
    const signed = (room: string, name: string) => t.app.get(RoomTokenService).sign(room, name);

    it("refuses a second holder's socket for a present name with name_taken and 4409", async () => {
      const room = newRoom();
      // Mallory took "Alice" while Alice was away; Alice came back with her own token.
      const early = signed(room, 'Alice');
      const alice = t.connect(room, signed(room, 'Alice'));
      await alice.next(isPresence('Alice', true));
      const bob = await t.join(room, 'Bob');
      await bob.drain();
      const mallory = t.connect(room, early);
      expect(await mallory.nextOfType(FrameType.Error)).toEqual({
        type: FrameType.Error,
        code: ErrorCode.NameTaken,
        message: NAME_TAKEN_MESSAGE,
      });
      expect(await mallory.closed).toMatchObject({ code: CloseCode.NameTaken });
      // The room never saw a second Alice, and hears nothing when the refused socket goes.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await bob.drain()).toEqual([]);
      expect(await say(alice, 'still me')).toMatchObject({ sender: 'Alice' });
      await alice.close();
      expect(await bob.next(isPresence('Alice', false))).toMatchObject({ connecting: false });
      // Once the holder is gone, the name is free for the other credential.
      const later = t.connect(room, early);
      await later.next(isPresence('Alice', true));
      await later.close();
    });

    it.each([
      ['another case', 'alice'],
      ['a capital I for an l', 'AIice'],
      ['a Cyrillic А', '\u0410lice'],
      ['a Cherokee Ꭺ', '\u13AAlice'],
      ['a Lisu ꓮ', '\uA4EElice'],
    ])('refuses a look-alike (%s) of a present name at the socket', async (_label, lookalike) => {
      const room = newRoom();
      const alice = await t.join(room, 'Alice');
      const twin = t.connect(room, signed(room, lookalike));
      expect(await twin.nextOfType(FrameType.Error)).toMatchObject({ code: ErrorCode.NameTaken });
      expect(await twin.closed).toMatchObject({ code: CloseCode.NameTaken });
      expect(await alice.drain()).toEqual([]);
    });

    it('lets every tab of one credential in, and refuses a rename into a look-alike', async () => {
      const room = newRoom();
      const token = signed(room, 'Bob');
      const tab1 = t.connect(room, token);
      await tab1.next(isPresence('Bob', true));
      const tab2 = t.connect(room, token);
      await tab2.next(isPresence('Bob', true));
      const eve = await t.join(room, 'Eve');
      eve.send({ type: FrameType.Rename, token: signed(room, 'B\u0585b'), client_id: 'r-1' });
      expect(await eve.nextOfType(FrameType.Error)).toMatchObject({
        code: ErrorCode.NameTaken,
        client_id: 'r-1',
      });
      expect(await say(eve, 'still Eve')).toMatchObject({ sender: 'Eve' });
    });
  });

  describe('rename (frame 8)', () => {
    const signed = (room: string, name: string) => t.app.get(RoomTokenService).sign(room, name);
    const presenceFrames = (frames: ServerFrame[]) =>
      frames.filter((f) => f.type === FrameType.Presence);

    it('moves the connection to the new name and tells everyone, old name gone', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = await t.join(room, 'Bob');
      await ann.next(isPresence('Bob', true));
      ann.send({ type: FrameType.Rename, token: await t.token(room, 'Annie') });
      const renamed = { type: FrameType.Presence, room, sender: 'Annie', connecting: true };
      const gone = { type: FrameType.Presence, room, sender: 'Ann', connecting: false };
      for (const client of [ann, bob]) {
        expect(await client.next(isPresence('Annie', true))).toEqual({
          ...renamed,
          renamed_from: 'Ann',
        });
        expect(await client.next(isPresence('Ann', false))).toEqual({
          ...gone,
          renamed_to: 'Annie',
        });
      }
      // The connection speaks as the new name; the old name is free, the new one taken.
      expect(await say(ann, 'new name')).toMatchObject({ sender: 'Annie' });
      expect((await t.post(ApiPath.roomCredentials(room), { sender_id: 'Ann' })).status).toBe(200);
      expect((await t.post(ApiPath.roomCredentials(room), { sender_id: 'annie' })).status).toBe(
        409,
      );
      const carl = t.connect(room, await t.token(room, 'Carl'));
      await carl.next(isPresence('Carl', true));
      const roster = presenceFrames(await carl.drain()).map((f) => f.sender);
      expect(roster).not.toContain('Ann');
      await ann.close();
      expect(await bob.next(isPresence('Annie', false))).not.toHaveProperty('renamed_to');
    });

    it('keeps the old name present while another of its connections is, until it follows', async () => {
      const room = newRoom();
      const annToken = await t.token(room, 'Ann');
      const tab1 = t.connect(room, annToken);
      await tab1.next(isPresence('Ann', true));
      const tab2 = t.connect(room, annToken);
      await tab2.next(isPresence('Ann', true));
      const bob = await t.join(room, 'Bob');
      await bob.drain();
      const annieToken = await t.token(room, 'Annie');
      tab1.send({ type: FrameType.Rename, token: annieToken });
      expect(await bob.next(isPresence('Annie', true))).toMatchObject({ renamed_from: 'Ann' });
      expect(presenceFrames(await bob.drain())).toEqual([]);
      expect((await t.post(ApiPath.roomCredentials(room), { sender_id: 'Ann' })).status).toBe(409);
      // Another token for that name is someone else's: Bob cannot follow.
      bob.send({ type: FrameType.Rename, token: signed(room, 'Annie') });
      expect(await bob.nextOfType(FrameType.Error)).toMatchObject({ code: ErrorCode.NameTaken });
      await tab2.next(isPresence('Annie', true));
      // The second tab takes the name its first one holds now: only it hears that it moved.
      tab2.send({ type: FrameType.Rename, token: annieToken, client_id: 'f-1' });
      expect(await tab2.next(isPresence('Annie', true))).toEqual({
        type: FrameType.Presence,
        room,
        sender: 'Annie',
        connecting: true,
        renamed_from: 'Ann',
      });
      expect(await bob.next(isPresence('Ann', false))).toMatchObject({ renamed_to: 'Annie' });
      expect(presenceFrames(await bob.drain())).toEqual([]);
      expect(await say(tab2, 'both tabs')).toMatchObject({ sender: 'Annie' });
      expect((await t.post(ApiPath.roomCredentials(room), { sender_id: 'Ann' })).status).toBe(200);
      await tab1.close();
      // Annie is still connected through the second tab.
      expect(presenceFrames(await bob.drain())).toEqual([]);
    });

    it('applies renames sent back to back one after the other, leaving no name behind', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = await t.join(room, 'Bob');
      await bob.drain();
      ann.send({ type: FrameType.Rename, token: signed(room, 'Annie') });
      ann.send({ type: FrameType.Rename, token: signed(room, 'Anna') });
      expect(await bob.next(isPresence('Annie', true))).toMatchObject({ renamed_from: 'Ann' });
      expect(await bob.next(isPresence('Anna', true))).toMatchObject({ renamed_from: 'Annie' });
      expect(await bob.next(isPresence('Annie', false))).toMatchObject({ renamed_to: 'Anna' });
      await ann.close();
      await bob.next(isPresence('Anna', false));
      const carl = t.connect(room, await t.token(room, 'Carl'));
      await carl.next(isPresence('Carl', true));
      const roster = presenceFrames(await carl.drain()).map((f) => f.sender);
      expect(roster).toEqual(['Bob']);
    });

    it('refuses a token of another room, a forged token and a name someone holds', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = await t.join(room, 'Bob');
      await ann.next(isPresence('Bob', true));
      await bob.drain();
      const refused: ErrorFrame = {
        type: FrameType.Error,
        code: ErrorCode.Unauthorized,
        message: FrameErrorMessage.renameRefused,
      };
      ann.send({ type: FrameType.Rename, token: await t.token(newRoom(), 'Annie') });
      expect(await ann.nextOfType(FrameType.Error)).toEqual(refused);
      // Each refusal carries the client_id of the frame it answers.
      ann.send({ type: FrameType.Rename, token: 'not-a-token', client_id: 'r-1' });
      expect(await ann.nextOfType(FrameType.Error)).toEqual({ ...refused, client_id: 'r-1' });
      // A valid token for a name someone is connected with.
      ann.send({ type: FrameType.Rename, token: signed(room, 'BOB'), client_id: 'r-2' });
      expect(await ann.nextOfType(FrameType.Error)).toEqual({
        type: FrameType.Error,
        code: ErrorCode.NameTaken,
        message: NAME_TAKEN_MESSAGE,
        client_id: 'r-2',
      });
      // Its own current name: nothing happens.
      ann.send({ type: FrameType.Rename, token: signed(room, 'Ann') });
      expect(presenceFrames(await bob.drain())).toEqual([]);
      expect(await say(ann, 'still me')).toMatchObject({ sender: 'Ann' });
    });
  });
});
