/**
 * What most teams would pick: Socket.IO 4 with @socket.io/redis-adapter (ioredis pub/sub), rooms
 * via socket.join and io.to(room).emit, storing each message with the same Lua script as the raw
 * peer (seq, history list, trim, expiry) before broadcasting the frame Taco Chat would send.
 *
 *   PORT=4001 REDIS_URL=redis://127.0.0.1:6379 tsx loadtest/peers/socketio-server.ts
 * Client: io('http://127.0.0.1:PORT', { transports: ['websocket'], query: { room, name } });
 * events 'message' both ways carry Taco Chat's frames as objects.
 */
import { createAdapter } from '@socket.io/redis-adapter';
import Redis from 'ioredis';
import { Server } from 'socket.io';
import { decodeClientValue, FrameType } from '@taco/protocol';
import { peer, peerErrors, storeMessage } from './store';

const { redisUrl, redis, httpServer, listen } = peer(() => {
  void io.close();
  pub.disconnect();
  sub.disconnect();
});
const { unsupported, unavailable } = peerErrors('This peer takes message frames');
const pub = new Redis(redisUrl);
const sub = new Redis(redisUrl);
// Socket.IO answers its own path; `/health` and everything else land on the peer's handler.
const io = new Server(httpServer, {
  transports: ['websocket'],
  perMessageDeflate: false,
  serveClient: false,
  adapter: createAdapter(pub, sub),
});

io.on('connection', (socket) => {
  const { room, name } = socket.handshake.query;
  if (typeof room !== 'string' || typeof name !== 'string') {
    socket.disconnect(true);
    return;
  }
  const presence = (connecting: boolean) =>
    io.to(room).emit('presence', { type: FrameType.Presence, room, sender: name, connecting });
  void socket.join(room);
  presence(true);
  socket.on('message', (data: unknown) => {
    // Taco Chat's own codec on the value Socket.IO parsed: the same acceptance rules.
    const decoded = decodeClientValue(data);
    const frame = decoded.ok ? decoded.frame : null;
    if (frame?.type !== FrameType.Message) {
      socket.emit('message', unsupported);
      return;
    }
    const timestamp = Date.now() / 1000;
    storeMessage(redis, room, name, frame.body, timestamp)
      .then((seq) => {
        io.to(room).emit('message', {
          type: FrameType.Message,
          room,
          sender: name,
          body: frame.body,
          timestamp,
          seq,
          ...(frame.client_id === undefined ? {} : { client_id: frame.client_id }),
        });
      })
      .catch(() => socket.emit('message', unavailable));
  });
  socket.on('disconnect', () => presence(false));
});

listen();
