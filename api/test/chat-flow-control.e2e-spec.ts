import {
  CloseCode,
  ErrorCode,
  FrameType,
  HISTORY_COUNT_MAX,
  MESSAGE_MAX_LENGTH,
  type ServerHistoryFrame,
  type ServerMessageFrame,
} from '@taco/protocol';
import { MetricsService } from '../src/metrics/metrics.service';
import { isError, isHistory, isLive, isPresence } from '@taco/harness';
import { closesWith, say } from './support/chat-socket';
import { startTestApp } from './support/test-app';
import { until } from './support/until';

describe('Chat socket', () => {
  describe('rate limits', () => {
    it('answers rate_limited past the message burst, refills with time, and keeps the order', async () => {
      const app = await startTestApp({ messageBurst: 3, messagesPerSecond: 1 });
      try {
        const ann = await app.join('teal-otter', 'Ann');
        for (let i = 1; i <= 4; i++) {
          ann.send({ type: FrameType.Message, body: `m${i}`, client_id: `c-${i}` });
        }
        expect(await ann.next(isError(ErrorCode.RateLimited))).toMatchObject({
          type: FrameType.Error,
          client_id: 'c-4',
        });
        const frames = (await ann.drain(50)).filter(isLive);
        expect(frames.map((f) => f.body)).toEqual(['m1', 'm2', 'm3']);
        app.clock.advance(1000);
        expect((await say(ann, 'after a pause')).seq).toBe(4);
      } finally {
        await app.close();
      }
    });

    it('does not hand a socket reopened by the same name a fresh burst, nor a clean record', async () => {
      const app = await startTestApp({ messageBurst: 3, messagesPerSecond: 1 });
      try {
        const token = await app.token('teal-otter', 'Ann');
        const first = app.connect('teal-otter', token);
        await first.next(isPresence('Ann', true));
        for (let i = 1; i <= 3; i++) await say(first, `m${i}`);
        await first.close();
        // Reopened at once: the burst is still spent.
        const second = app.connect('teal-otter', token);
        await second.next(isPresence('Ann', true));
        second.send({ type: FrameType.Message, body: 'again', client_id: 'c-again' });
        expect(await second.next(isError(ErrorCode.RateLimited))).toMatchObject({
          client_id: 'c-again',
        });
        // It refills with time as it would have on the first socket; another name is not affected.
        const bob = await app.join('teal-otter', 'Bob');
        expect((await say(bob, 'hello')).sender).toBe('Bob');
        await second.drain(50);
        app.clock.advance(1000);
        expect((await say(second, 'after a pause')).body).toBe('after a pause');
      } finally {
        await app.close();
      }
    });

    it('limits typing and history requests separately', async () => {
      const app = await startTestApp({ typingPerSecond: 1, historyRequests: 1 });
      try {
        const ann = await app.join('teal-otter', 'Ann');
        ann.send({ type: FrameType.Typing, typing: true });
        ann.send({ type: FrameType.Typing, typing: true, client_id: 't-2' });
        expect(await ann.next(isError(ErrorCode.RateLimited))).toMatchObject({ client_id: 't-2' });
        ann.send({ type: FrameType.History, count: 5 });
        await ann.next(isHistory);
        ann.send({ type: FrameType.History, count: 5, client_id: 'h-2' });
        expect(await ann.next(isError(ErrorCode.RateLimited))).toMatchObject({ client_id: 'h-2' });
        // Messages have their own bucket.
        await say(ann, 'still allowed');
      } finally {
        await app.close();
      }
    });

    it('closes with 4429 after repeated abuse', async () => {
      const app = await startTestApp({ messageBurst: 1, strikesBeforeClose: 3 });
      try {
        const ann = await app.join('teal-otter', 'Ann');
        for (let i = 0; i < 10; i++) ann.send({ type: FrameType.Message, body: `flood ${i}` });
        expect((await ann.closed).code).toBe(CloseCode.RateLimited);
      } finally {
        await app.close();
      }
    });
  });

  it('keeps a reader that gets more than the send-buffer limit in one burst', async () => {
    const app = await startTestApp({ messageBurst: 100_000, messagesPerSecond: 100_000 });
    try {
      const reader = await app.join('burst-room', 'Reader');
      const writer = await app.join('burst-room', 'Writer');
      let received = 0;
      reader.socket.on('message', (data: Buffer) => {
        if ((JSON.parse(data.toString()) as { type: number }).type === FrameType.Message)
          received++;
      });
      // 400 frames of 4,000 characters (1.6 MB) leave the writer in one TCP write, so the server
      // reads them, and fans them out, in one turn of its event loop.
      const total = 400;
      const body = 'x'.repeat(MESSAGE_MAX_LENGTH);
      const tcp = (writer.socket as unknown as { _socket: { cork(): void; uncork(): void } })
        ._socket;
      tcp.cork();
      for (let i = 0; i < total; i++) writer.send({ type: FrameType.Message, body });
      tcp.uncork();
      const deadline = Date.now() + 3_000;
      while (received < total && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect({ received, open: reader.socket.readyState === reader.socket.OPEN }).toEqual({
        received: total,
        open: true,
      });
    } finally {
      await app.close();
    }
  });

  it('closes a client that stops reading with 1013, and everyone else is unaffected', async () => {
    const app = await startTestApp({
      messageBurst: 100_000,
      messagesPerSecond: 100_000,
      // The client reads again once the others have everything, however long that takes here,
      // and must still find the close frame (a paused peer is dropped, see the next test).
      closeTimeoutMs: 120_000,
    });
    try {
      const reader = await app.join('slow-room', 'Reader');
      const slow = await app.join('slow-room', 'Slow');
      const writer = await app.join('slow-room', 'Writer');
      // Stop reading from the socket: the server's send buffer for it grows.
      (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const body = 'x'.repeat(MESSAGE_MAX_LENGTH);
      let received = 0;
      reader.socket.on('message', () => received++);
      // Paced in batches, so healthy readers drain between them while the paused one piles up.
      const total = 3000;
      for (let batch = 0; batch < total / 50; batch++) {
        for (let i = 0; i < 50; i++) writer.send({ type: FrameType.Message, body });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const deadline = Date.now() + 20_000;
      while (received < total && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(received).toBeGreaterThanOrEqual(total);
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      expect((await slow.closed).code).toBe(CloseCode.TryAgainLater);
      expect(reader.socket.readyState).toBe(reader.socket.OPEN);
    } finally {
      await app.close();
    }
  }, 30_000);

  it('drops a client that stopped reading for good once its close handshake is overdue, and says it left', async () => {
    const app = await startTestApp({ messageBurst: 100_000, messagesPerSecond: 100_000 });
    try {
      const metrics = app.app.get(MetricsService);
      const cutOff = () => closesWith(app, CloseCode.TryAgainLater);
      const open = async () => (await metrics.connections.get()).values[0]?.value ?? 0;
      const reader = await app.join('paused-room', 'Reader');
      const paused = await app.join('paused-room', 'Paused');
      const writer = await app.join('paused-room', 'Writer');
      // A real TCP peer that stops reading and never reads again: it cannot answer a close frame.
      (paused.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const body = 'x'.repeat(MESSAGE_MAX_LENGTH);
      for (let batch = 0; batch < 400 && (await cutOff()) === 0; batch++) {
        for (let i = 0; i < 50; i++) writer.send({ type: FrameType.Message, body });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // The server has started the close (1013); the peer has not answered, so it is still open.
      expect({ cutOff: await cutOff(), open: await open() }).toEqual({ cutOff: 1, open: 3 });
      // Then the server drops the TCP connection, and the others hear that Paused is gone.
      await until(async () => (await open()) === 2, 15_000, 50);
      await reader.next(isPresence('Paused', false), 10_000);
      await writer.next(isPresence('Paused', false), 10_000);
      // And they keep talking.
      writer.send({ type: FrameType.Message, body: 'still here' });
      const after = await reader.next<ServerMessageFrame>(
        (frame) => isLive(frame) && frame.body === 'still here',
        10_000,
      );
      expect(after.sender).toBe('Writer');
      expect(reader.socket.readyState).toBe(reader.socket.OPEN);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('closes with 1013 a client that asks for a large history page and never reads it', async () => {
    const app = await startTestApp({
      messageBurst: 100_000,
      messagesPerSecond: 100_000,
      historyRequests: 100,
      backlogGraceMs: 2000,
    });
    try {
      const cutOff = () => closesWith(app, CloseCode.TryAgainLater);
      // 500 messages of 16 KB: one history page of about 8 MB.
      const writer = await app.join('big-room', 'Writer');
      const body = '🌮'.repeat(MESSAGE_MAX_LENGTH);
      for (let i = 0; i < HISTORY_COUNT_MAX; i++) writer.send({ type: FrameType.Message, body });
      await until(async () => {
        writer.send({ type: FrameType.History, count: 1 });
        // The answer comes after the writer's own 8 MB of copies: no short wait here.
        const page = await writer.next<ServerHistoryFrame>(isHistory, 20_000);
        return page.messages[0]?.seq === HISTORY_COUNT_MAX;
      }, 20_000);
      // A healthy reader gets whole pages, even asked for back to back, and stays.
      for (let i = 0; i < 3; i++)
        writer.send({ type: FrameType.History, count: HISTORY_COUNT_MAX });
      for (let i = 0; i < 3; i++) {
        const page = await writer.next<ServerHistoryFrame>(isHistory, 20_000);
        expect(page.messages).toHaveLength(HISTORY_COUNT_MAX);
      }
      expect(await cutOff()).toBe(0);
      // One that stops reading before it asks is closed once the grace period is over.
      const idle = await app.join('big-room', 'Idle');
      (idle.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      idle.send({ type: FrameType.History, count: HISTORY_COUNT_MAX });
      await until(async () => (await cutOff()) === 1, 10_000, 50);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(writer.socket.readyState).toBe(writer.socket.OPEN);
      expect(await cutOff()).toBe(1);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('drops a connection that stops answering pings', async () => {
    const app = await startTestApp({ pingIntervalMs: 50 });
    try {
      const bob = await app.join('teal-otter', 'Bob');
      const silent = await app.join('teal-otter', 'Ann', { autoPong: false });
      expect((await silent.closed).code).toBe(1006);
      expect(await bob.next(isPresence('Ann', false), 2000)).toMatchObject({ connecting: false });
      expect(bob.socket.readyState).toBe(bob.socket.OPEN);
    } finally {
      await app.close();
    }
  });
});
