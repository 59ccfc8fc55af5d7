import { Logger } from '@nestjs/common';
import { type ChatConnection } from './chat-connection';
import { type Refused } from './connection-admission';

/**
 * One line per connection opened, refused or closed: room, replica, connection, close code and
 * duration. Never a token, never a message.
 */
export class ConnectionLog {
  private readonly logger = new Logger('Connection');

  constructor(private readonly replica: string) {}

  opened(connection: ChatConnection): void {
    this.logger.log(
      `opened room=${connection.room} replica=${this.replica} connection=${connection.id}`,
    );
  }

  refused(refusal: Refused): void {
    this.logger.log(
      `refused room=${refusal.room ?? '-'} replica=${this.replica} code=${refusal.code} reason="${refusal.reason}"`,
    );
  }

  closed(connection: ChatConnection, durationMs: number): void {
    this.logger.log(
      `closed room=${connection.room} replica=${this.replica} connection=${connection.id} code=${connection.closeCode ?? '-'} duration=${(durationMs / 1000).toFixed(1)}s`,
    );
  }
}
