/**
 * A stand-in chat server that speaks the part of the wire contract the k6 scripts use
 * (credentials, presence, history with `after`, messages with a per-room seq, heartbeats) and
 * loses messages on purpose, counting exactly what it lost, so a test can check that the scripts'
 * chat_messages_lost counts every lost delivery and nothing else.
 *
 * - `dropTo` / `dropEvery`: the live copy of every message whose seq is a multiple of `dropEvery`
 *   is not sent to the member named `dropTo` (it is stored, and everyone else gets it).
 * - `swallowFrom` / `swallowNth`: the `swallowNth` message of the member named `swallowFrom` is
 *   neither stored, delivered, echoed nor refused: it vanishes.
 * - `refuseFrom` / `refuseNth`: that message is refused with a `rate_limited` error frame that
 *   does not carry the message's client_id. A refusal is not a loss.
 * - `restartAfter`: once a room has stored that many messages, its sequence starts again (a new
 *   `epoch`, seq from 1, the old history gone), as when an embedded server restarts or Redis loses
 *   the room's data. Nothing is lost by that alone: every member was sent every message before.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface LossPlan {
  dropTo: string;
  dropEvery: number;
  swallowFrom: string;
  swallowNth: number;
  refuseFrom: string;
  refuseNth: number;
  restartAfter?: number;
}

interface Stored {
  sender: string;
  body: string;
  timestamp: number;
  seq: number;
}

interface Room {
  epoch: string;
  seq: number;
  /** Messages stored, in every epoch. */
  stored: number;
  log: Stored[];
  members: Map<WebSocket, string>;
}

export interface LossyServer {
  url: string;
  /** Live copies withheld, and messages swallowed whole. */
  readonly dropped: { deliveries: number; swallowed: number; refused: number };
  /** Messages stored (each delivered to every member present, except what was dropped). */
  readonly stored: () => number;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startLossyServer(plan: LossPlan): Promise<LossyServer> {
  const rooms = new Map<string, Room>();
  const dropped = { deliveries: 0, swallowed: 0, refused: 0 };
  const sentBy = new Map<string, number>();
  const roomOf = (id: string): Room => {
    let room = rooms.get(id);
    if (!room) {
      room = { epoch: 'first', seq: 0, stored: 0, log: [], members: new Map() };
      rooms.set(id, room);
    }
    return room;
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/api/health/ready') return json(res, 200, {});
    const credentials = /^\/api\/room\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'POST' && credentials) {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        const name = String((JSON.parse(text) as { sender_id: string }).sender_id).trim();
        const room = decodeURIComponent(credentials[1]!);
        const token = Buffer.from(JSON.stringify({ room, name })).toString('base64url');
        json(res, 200, { room_id: room, sender_id: name, token });
      });
      return;
    }
    json(res, 404, { statusCode: 404 });
  });

  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket: WebSocket, req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const { room: roomId, name } = JSON.parse(
      Buffer.from(url.searchParams.get('token') ?? '', 'base64url').toString('utf8'),
    ) as { room: string; name: string };
    const room = roomOf(roomId);
    const send = (to: WebSocket, frame: unknown) => to.send(JSON.stringify(frame));
    room.members.set(socket, name);
    for (const present of new Set(room.members.values())) {
      send(socket, { type: 3, room: roomId, sender: present, connecting: true });
    }
    for (const [other, otherName] of room.members) {
      if (other !== socket && otherName !== name) {
        send(other, { type: 3, room: roomId, sender: name, connecting: true });
      }
    }
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as {
        type: number;
        body?: string;
        client_id?: string;
        count?: number;
        after?: number;
        epoch?: string;
        typing?: boolean;
      };
      if (frame.type === 6) return send(socket, { type: 6 });
      if (frame.type === 2) {
        for (const [other, otherName] of room.members) {
          if (otherName !== name)
            send(other, { type: 2, room: roomId, sender: name, typing: true });
        }
        return;
      }
      if (frame.type === 5) {
        const count = frame.count ?? 100;
        const sameEpoch = frame.epoch === undefined || frame.epoch === room.epoch;
        const messages =
          frame.after === undefined || !sameEpoch
            ? room.log.slice(-count)
            : room.log.filter((m) => m.seq > frame.after!).slice(0, count);
        const complete = sameEpoch;
        return send(socket, { type: 1, room: roomId, epoch: room.epoch, messages, complete });
      }
      if (frame.type === 1) {
        const nth = (sentBy.get(name) ?? 0) + 1;
        sentBy.set(name, nth);
        if (name === plan.swallowFrom && nth === plan.swallowNth) {
          dropped.swallowed += 1;
          return;
        }
        if (name === plan.refuseFrom && nth === plan.refuseNth) {
          dropped.refused += 1;
          return send(socket, { type: 7, code: 'rate_limited', message: 'Slow down' });
        }
        if (plan.restartAfter !== undefined && room.stored === plan.restartAfter) {
          room.epoch = 'second';
          room.seq = 0;
          room.log = [];
        }
        room.seq += 1;
        room.stored += 1;
        const stored: Stored = {
          sender: name,
          body: frame.body ?? '',
          timestamp: Date.now() / 1000,
          seq: room.seq,
        };
        room.log.push(stored);
        const live = {
          type: 1,
          room: roomId,
          ...stored,
          epoch: room.epoch,
          client_id: frame.client_id,
        };
        for (const [member, memberName] of room.members) {
          if (memberName === plan.dropTo && stored.seq % plan.dropEvery === 0) {
            dropped.deliveries += 1;
            continue;
          }
          send(member, live);
        }
      }
    });
    socket.on('close', () => {
      room.members.delete(socket);
      if (![...room.members.values()].includes(name)) {
        for (const other of room.members.keys()) {
          send(other, { type: 3, room: roomId, sender: name, connecting: false });
        }
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dropped,
    stored: () => [...rooms.values()].reduce((sum, room) => sum + room.stored, 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve());
      }),
  };
}
