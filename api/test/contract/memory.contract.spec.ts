import { MemoryChatBus } from '../../src/bus/memory/memory-chat-bus';
import { MemoryConnectionLimiter } from '../../src/bus/memory/memory-connection-limiter';
import { MemoryIpRateLimiter } from '../../src/bus/memory/memory-ip-rate-limiter';
import { MemoryPresenceStore } from '../../src/bus/memory/memory-presence.store';
import { MemoryRoomSettingsStore } from '../../src/bus/memory/memory-room-settings.store';
import { MemoryTicketStore } from '../../src/bus/memory/memory-ticket.store';
import { MemoryTokenSecretStore } from '../../src/bus/memory/memory-token-secret.store';
import { FakeClock } from '../support/fake-clock';
import { describeChatBusContract } from './chat-bus.contract';
import { describeConnectionLimiterContract } from './connection-limiter.contract';
import { describeIpRateLimiterContract } from './ip-rate-limiter.contract';
import { describePresenceContract } from './presence.contract';
import { describeRoomSettingsContract } from './room-settings.contract';
import { describeTicketStoreContract } from './ticket-store.contract';
import { describeTokenSecretStoreContract } from './token-secret-store.contract';

const HISTORY_MAX = 5;

const ROOM_TTL_MS = 60_000;

describeChatBusContract('memory', () => {
  let later = 0;
  const bus = new MemoryChatBus({
    historyMax: HISTORY_MAX,
    roomTtlMs: ROOM_TTL_MS,
    now: () => Date.now() + later,
  });
  return Promise.resolve({
    bus,
    historyMax: HISTORY_MAX,
    expireRoom: async (room: string) => {
      await bus.unsubscribe(room);
      later += ROOM_TTL_MS + 1;
      bus.sweep();
    },
    dispose: () => Promise.resolve(),
  });
});

describePresenceContract('memory', () => {
  const bus = new MemoryChatBus({ historyMax: HISTORY_MAX, roomTtlMs: ROOM_TTL_MS, now: Date.now });
  return Promise.resolve({
    store: new MemoryPresenceStore(bus),
    bus,
    dispose: () => Promise.resolve(),
  });
});

// Embedded, one process is every replica there is: each port's peer is the port itself.

describeTicketStoreContract('memory', () => {
  const clock = new FakeClock();
  const store = new MemoryTicketStore(() => clock.now());
  return Promise.resolve({
    store,
    peer: store,
    elapse: (ms: number) => Promise.resolve(clock.advance(ms)),
    dispose: () => Promise.resolve(),
  });
});

describeConnectionLimiterContract('memory', (cap) => {
  const limiter = new MemoryConnectionLimiter(cap);
  return Promise.resolve({ limiter, peer: limiter, dispose: () => Promise.resolve() });
});

describeIpRateLimiterContract('memory', (perMinute) => {
  const clock = new FakeClock();
  const limiter = new MemoryIpRateLimiter(perMinute, () => clock.now());
  return Promise.resolve({
    limiter,
    peer: limiter,
    elapse: (ms: number) => Promise.resolve(clock.advance(ms)),
    dispose: () => Promise.resolve(limiter.close()),
  });
});

describeTokenSecretStoreContract('memory', () => {
  const store = new MemoryTokenSecretStore();
  return Promise.resolve({ store, peer: store, dispose: () => Promise.resolve() });
});

describe('MemoryChatBus room expiry', () => {
  it('forgets rooms idle past the room TTL unless this process is subscribed to them', async () => {
    let now = 0;
    const bus = new MemoryChatBus({ historyMax: 5, roomTtlMs: 1000, now: () => now });
    await bus.append('idle', { sender: 'Ann', body: 'a', timestamp: 0 });
    await bus.append('busy', { sender: 'Ann', body: 'b', timestamp: 0 });
    await bus.subscribe('busy');
    now = 1001;
    expect(bus.sweep()).toBe(1);
    expect((await bus.history('idle', { count: 5 })).messages).toEqual([]);
    expect((await bus.history('busy', { count: 5 })).messages).toHaveLength(1);
  });

  it('forgets an expired room when it is next read, before any sweep', async () => {
    let now = 0;
    const bus = new MemoryChatBus({ historyMax: 5, roomTtlMs: 1000, now: () => now });
    const first = await bus.append('idle', { sender: 'Ann', body: 'a', timestamp: 0 });
    now = 1000;
    expect(await bus.hasRoom('idle')).toBe(true);
    now = 1001;
    expect(await bus.hasRoom('idle')).toBe(false);
    const page = await bus.history('idle', { count: 5 });
    expect(page.messages).toEqual([]);
    expect(page.epoch).not.toBe(first.epoch);
  });
});

describeRoomSettingsContract('memory', () => {
  const clock = new FakeClock();
  const now = () => clock.now();
  const bus = new MemoryChatBus({ historyMax: HISTORY_MAX, roomTtlMs: ROOM_TTL_MS, now });
  const removals: { of?: MemoryRoomSettingsStore } = {};
  const presence = new MemoryPresenceStore(bus, (room, holder) =>
    Boolean(removals.of?.removedNow(room, holder)),
  );
  const store = new MemoryRoomSettingsStore(bus, presence, ROOM_TTL_MS, now);
  removals.of = store;
  return Promise.resolve({
    store,
    peer: store,
    presence,
    bus,
    elapse: (ms: number) => Promise.resolve(clock.advance(ms)),
    dispose: () => Promise.resolve(),
  });
});
