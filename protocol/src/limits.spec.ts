import * as limits from './limits';

describe('limits', () => {
  test('name lengths', () => {
    expect(limits.NAME_MIN_LENGTH).toBe(3);
    expect(limits.ROOM_NAME_MAX_LENGTH).toBe(40);
    expect(limits.USER_NAME_MAX_LENGTH).toBe(32);
  });

  test('frame limits', () => {
    expect(limits.MESSAGE_MAX_LENGTH).toBe(4000);
    expect(limits.CLIENT_ID_MAX_LENGTH).toBe(64);
    expect(limits.FRAME_MAX_BYTES).toBe(16384);
    expect(limits.SEND_BUFFER_MAX_BYTES).toBe(1048576);
    expect(limits.SEND_BACKLOG_GRACE_MS).toBe(5000);
    expect(limits.CLOSE_HANDSHAKE_TIMEOUT_MS).toBe(5000);
  });

  test('history', () => {
    expect(limits.HISTORY_REQUEST_COUNT).toBe(100);
    expect(limits.HISTORY_COUNT_MAX).toBe(500);
    expect(limits.HISTORY_REQUEST_COUNT).toBeLessThanOrEqual(limits.HISTORY_COUNT_MAX);
    expect(limits.HISTORY_COUNT_MAX).toBeLessThanOrEqual(limits.HISTORY_MAX_DEFAULT);
  });

  test('reconnect', () => {
    expect(limits.RECONNECT_ATTEMPTS).toBe(10);
    expect(limits.RECONNECT_INTERVAL_MS).toBe(5000);
    expect(limits.RECONNECT_JITTER).toBe(0.2);
    expect(limits.RECONNECT_NOW_MAX_DELAY_MS).toBe(1000);
  });

  test('liveness', () => {
    expect(limits.PING_INTERVAL_MS).toBe(25000);
    expect(limits.HEARTBEAT_REPLY_TIMEOUT_MS).toBe(10_000);
    expect(limits.MISSED_PONGS_LIMIT).toBe(2);
    expect(limits.PRESENCE_TTL_MS).toBeGreaterThan(limits.PING_INTERVAL_MS);
  });

  test('typing', () => {
    expect(limits.TYPING_THROTTLE_MS).toBe(2000);
  });

  test('a stopped typist shows as typing for at most 3 s, a steady one without a gap', () => {
    expect(limits.TYPING_STALE_MS).toBeLessThanOrEqual(3000);
    expect(limits.TYPING_STALE_MS).toBeGreaterThan(limits.TYPING_THROTTLE_MS);
    expect(limits.TYPING_IDLE_MS).toBeLessThan(limits.TYPING_STALE_MS);
    expect(limits.TYPING_IDLE_MS).toBeGreaterThan(limits.TYPING_THROTTLE_MS);
  });

  test('rate limits are positive and the message burst allows a short conversation', () => {
    for (const [name, value] of Object.entries(limits.RATE_LIMITS)) {
      expect([name, value > 0]).toEqual([name, true]);
    }
    expect(limits.RATE_LIMITS.messageBurst).toBeGreaterThanOrEqual(
      limits.RATE_LIMITS.messagesPerSecond,
    );
  });

  test('a typing client stays within the typing rate limit', () => {
    expect(1000 / limits.TYPING_THROTTLE_MS).toBeLessThanOrEqual(
      limits.RATE_LIMITS.typingPerSecond,
    );
  });

  test('a client asking for history on every reconnect stays within the history rate limit', () => {
    const requestsPerWindow = Math.ceil(
      limits.RATE_LIMITS.historyWindowMs / limits.RECONNECT_INTERVAL_MS,
    );
    expect(requestsPerWindow).toBeLessThanOrEqual(limits.RATE_LIMITS.historyRequests);
  });
});
