import {
  type ApiErrorBody,
  ApiPath,
  COLOURS,
  ANIMALS,
  FrameType,
  type RoomInfoResponse,
  type RoomNameResponse,
  ValidationMessage,
} from '@taco/protocol';
import { RedisServer } from './support/redis-server';
import { DISAPPEAR_CHOICES } from './support/room-settings';
import { startTestApp, type TestApp } from './support/test-app';

const get = (app: TestApp, path: string) => fetch(`${app.baseUrl}${path}`);

async function participants(app: TestApp, room: string): Promise<number> {
  const response = await get(app, ApiPath.roomInfo(room));
  expect(response.status).toBe(200);
  const body = (await response.json()) as RoomInfoResponse;
  expect(body.room_id).toBe(room);
  return body.participants;
}

function describeRoomDirectory(driver: string, start: () => Promise<TestApp[]>) {
  describe(`Room name and room info (${driver})`, () => {
    let apps: TestApp[];
    let one: TestApp;
    let two: TestApp;

    beforeAll(async () => {
      apps = await start();
      one = apps[0] as TestApp;
      two = apps.at(-1) as TestApp;
    });
    afterAll(async () => {
      for (const app of apps) await app.close();
    });

    it('suggests a colour-animal name, different each time, never cached', async () => {
      const names = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const response = await get(one, ApiPath.roomName);
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        const { room_id, disappear_choices } = (await response.json()) as RoomNameResponse;
        // With it, what a new room's messages may disappear after (protocol/README.md §2.5).
        expect(disappear_choices).toEqual(DISAPPEAR_CHOICES);
        const [colour, animal] = room_id.split('-');
        expect(COLOURS).toContain(colour);
        expect(ANIMALS).toContain(animal);
        names.add(room_id);
      }
      expect(names.size).toBeGreaterThan(1);
    });

    it('counts distinct names present, over every replica, and never says who', async () => {
      const room = `busy-${driver}`;
      expect(await participants(one, room)).toBe(0);
      const ann = await one.join(room, 'Ann');
      const bob = await two.join(room, 'Bob');
      const cat = two.connect(room, await two.token(room, 'Cat'));
      await cat.next((frame) => frame.type === FrameType.Presence && frame.sender === 'Cat');
      expect(await participants(one, room)).toBe(3);
      expect(await participants(two, room)).toBe(3);
      const body = await (await get(two, ApiPath.roomInfo(room))).text();
      expect(body).not.toMatch(/Ann|Bob|Cat/);
      for (const client of [ann, bob, cat]) client.socket.close();
    });

    it('validates the room id like every other call', async () => {
      const response = await get(one, ApiPath.roomInfo('ab'));
      expect(response.status).toBe(400);
      expect(((await response.json()) as ApiErrorBody).message).toEqual([
        ValidationMessage.RoomNameTooShort,
      ]);
    });

    it('never suggests a room that is in use', async () => {
      const occupied = [`teal-${ANIMALS[0]}`, `teal-${ANIMALS[1]}`];
      // One room has history and no one in it; the other has someone in it.
      const writer = await one.join(occupied[0] ?? '', 'Writer');
      writer.send({ type: FrameType.Message, body: 'hello', client_id: 'w1' });
      await writer.next((frame) => frame.type === FrameType.Message && 'seq' in frame);
      writer.socket.close();
      await writer.closed;
      const host = await one.join(occupied[1] ?? '', 'Host');
      // The first two draws land on those rooms.
      const pick = (index: number, length: number) => (index + 0.5) / length;
      const teal = pick(COLOURS.indexOf('teal'), COLOURS.length);
      const random = jest
        .spyOn(Math, 'random')
        .mockReturnValueOnce(teal)
        .mockReturnValueOnce(pick(0, ANIMALS.length))
        .mockReturnValueOnce(teal)
        .mockReturnValueOnce(pick(1, ANIMALS.length));
      try {
        const { room_id } = (await (await get(two, ApiPath.roomName)).json()) as RoomNameResponse;
        expect(occupied).not.toContain(room_id);
        expect(random.mock.calls.length).toBeGreaterThanOrEqual(6);
      } finally {
        random.mockRestore();
        host.socket.close();
      }
    });
  });
}

describeRoomDirectory('memory', async () => [await startTestApp()]);

let server: RedisServer;
beforeAll(async () => {
  server = await RedisServer.start();
});
afterAll(() => server.dispose());

describeRoomDirectory('redis', async () => [
  await startTestApp({ redisUrl: server.url, replicaId: 'one' }),
  await startTestApp({ redisUrl: server.url, replicaId: 'two' }),
]);
