import {
  ApiPath,
  STORAGE_UNAVAILABLE_MESSAGE,
  CloseCode,
  ErrorCode,
  type ErrorFrame,
  FrameType,
  type ServerHistoryFrame,
  type ServerMessageFrame,
} from '@taco/protocol';
import { RoomTokenService } from '../src/rooms/room-token.service';
import { parsePrometheusText } from './support/prometheus-text';
import { RedisServer } from './support/redis-server';
import { startTestApp } from './support/test-app';
import { until } from './support/until';
import { isHistory, isLive } from '@taco/harness';

describe('Redis outages', () => {
  it('answers unavailable and 503 while Redis is down, then recovers without a restart', async () => {
    const redis = await RedisServer.start();
    const app = await startTestApp({ redisUrl: redis.url, presenceRefreshMs: 100 });
    try {
      const ann = await app.join('outage-room', 'Ann');
      ann.send({ type: FrameType.Message, body: 'before' });
      const before = await ann.next<ServerMessageFrame>(isLive);
      const annToken = app.app.get(RoomTokenService).sign('outage-room', 'Ann');

      await redis.stop('SIGTERM');
      await until(async () => (await fetch(`${app.baseUrl}/api/health/ready`)).status === 503);
      // Typing is never stored: one lost meanwhile is not answered with an error.
      ann.send({ type: FrameType.Typing, typing: true });
      ann.send({ type: FrameType.Message, body: 'during', client_id: 'during' });
      const error = await ann.next<ErrorFrame>((frame) => frame.type === FrameType.Error, 5000);
      expect(error).toMatchObject({ code: ErrorCode.Unavailable, client_id: 'during' });
      // What the monitoring alerts on (infra/monitoring/rules): not ready, and messages refused.
      const down = parsePrometheusText(
        await (await fetch(`${app.baseUrl}${ApiPath.metrics}`)).text(),
      );
      expect(down.get('taco_ready')?.samples[0]?.value).toBe(0);
      expect(
        down
          .get('taco_error_frames_total')
          ?.samples.find((sample) => sample.labels.code === ErrorCode.Unavailable)?.value,
      ).toBe(1);
      expect((await app.post('/api/room/outage-room', { sender_id: 'Bob' })).status).toBe(503);
      // A reconnect's ticket call, with a valid token, is told the same.
      const ticket = await app.post(ApiPath.roomTicket('outage-room'), undefined, {
        authorization: `Bearer ${annToken}`,
      });
      expect([ticket.status, await ticket.json()]).toEqual([
        503,
        {
          statusCode: 503,
          error: 'Service Unavailable',
          message: STORAGE_UNAVAILABLE_MESSAGE,
        },
      ]);

      await redis.start();
      await until(
        async () => (await fetch(`${app.baseUrl}/api/health/ready`)).status === 200,
        10_000,
      );
      const up = parsePrometheusText(
        await (await fetch(`${app.baseUrl}${ApiPath.metrics}`)).text(),
      );
      expect(up.get('taco_ready')?.samples[0]?.value).toBe(1);
      // History survived (AOF), and live delivery resumed on the re-subscribed channel.
      ann.send({ type: FrameType.History, count: 10 });
      const history = await ann.next<ServerHistoryFrame>(isHistory);
      expect(history.messages.map((m) => m.body)).toEqual(['before']);
      ann.send({ type: FrameType.Message, body: 'after' });
      const after = await ann.next<ServerMessageFrame>(isLive, 5000);
      expect(after.seq).toBe(before.seq + 1);
      expect(ann.socket.readyState).toBe(ann.socket.OPEN);
    } finally {
      await app.close();
      await redis.dispose();
    }
  });

  it('answers a message sent while Redis is stalled once Redis answers, never as not stored', async () => {
    const redis = await RedisServer.start();
    const app = await startTestApp({ redisUrl: redis.url });
    try {
      const ann = await app.join('stalled-room', 'Ann');
      const bob = await app.join('stalled-room', 'Bob');
      ann.send({ type: FrameType.Message, body: 'before', client_id: 'a1' });
      await bob.next(isLive);
      await ann.next(isLive);

      // Longer than the command connection's time limit (2 s): the script is in Redis's hands,
      // so refusing it as unavailable could be untrue once Redis goes on.
      redis.pause();
      ann.send({ type: FrameType.Message, body: 'during', client_id: 'a2' });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      redis.resume();

      const own = await ann.next<ServerMessageFrame | ErrorFrame>(
        (frame) => frame.type === FrameType.Message || frame.type === FrameType.Error,
        5000,
      );
      expect(own).toMatchObject({ type: FrameType.Message, body: 'during', client_id: 'a2' });
      expect(await bob.next(isLive, 5000)).toMatchObject({ body: 'during', seq: 2 });
      ann.send({ type: FrameType.History, count: 10 });
      const history = await ann.next<ServerHistoryFrame>(isHistory);
      expect(history.messages.map((m) => m.body)).toEqual(['before', 'during']);
    } finally {
      await app.close();
      await redis.dispose();
    }
  });

  it('refuses a join with 1013 while Redis is down', async () => {
    const redis = await RedisServer.start();
    const app = await startTestApp({ redisUrl: redis.url });
    try {
      const token = await app.token('down-room', 'Ann');
      await redis.stop('SIGKILL');
      const client = app.connect('down-room', token);
      expect((await client.closed).code).toBe(CloseCode.TryAgainLater);
    } finally {
      await app.close();
      await redis.dispose();
    }
  });
});
