import { MemoryChatBus } from '../../src/bus/memory/memory-chat-bus';
import { MemoryPresenceStore } from '../../src/bus/memory/memory-presence.store';
import { describeChatBusContract } from './chat-bus.contract';
import { describePresenceContract } from './presence.contract';

const HISTORY_MAX = 5;

describeChatBusContract('memory', () =>
  Promise.resolve({
    bus: new MemoryChatBus({ historyMax: HISTORY_MAX, roomTtlMs: 60_000, now: () => Date.now() }),
    historyMax: HISTORY_MAX,
    dispose: () => Promise.resolve(),
  }),
);

describePresenceContract('memory', () =>
  Promise.resolve({ store: new MemoryPresenceStore(), dispose: () => Promise.resolve() }),
);

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
});
