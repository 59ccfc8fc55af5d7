import {
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { ChatBus } from './chat-bus.port';
import { MemoryChatBus } from './memory/memory-chat-bus';
import { MemoryPresenceStore } from './memory/memory-presence.store';
import { PresenceStore } from './presence.port';

const SWEEP_INTERVAL_MS = 60_000;

function createChatBus(config: AppConfig, clock: Clock): ChatBus {
  return new MemoryChatBus({
    historyMax: config.historyMax,
    roomTtlMs: config.roomTtlSeconds * 1000,
    now: () => clock.now(),
  });
}

/** Chooses the storage and fan-out driver from configuration. */
@Global()
@Module({
  providers: [
    { provide: ChatBus, useFactory: createChatBus, inject: [AppConfig, Clock] },
    { provide: PresenceStore, useFactory: () => new MemoryPresenceStore() },
  ],
  exports: [ChatBus, PresenceStore],
})
export class BusModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(BusModule.name);
  private sweeper: NodeJS.Timeout | undefined;

  constructor(@Inject(ChatBus) private readonly bus: ChatBus) {}

  onModuleInit(): void {
    const bus = this.bus;
    if (bus instanceof MemoryChatBus) {
      this.logger.log('Embedded mode: rooms, history and presence live in this process');
      this.sweeper = setInterval(() => bus.sweep(), SWEEP_INTERVAL_MS).unref();
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }
}
