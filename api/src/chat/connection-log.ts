import { Logger } from '@nestjs/common';
import { type ChatConnection } from './chat-connection';
import { type Refused } from './connection-admission';

/**
 * One line per connection opened, refused or closed (`msg`), with the room, replica, connection,
 * close code and duration (`durationMs`) as fields. Never a token, never a message.
 */
export class ConnectionLog {
  private readonly logger = new Logger('Connection');

  constructor(private readonly replica: string) {}

  opened(connection: ChatConnection): void {
    this.logger.log({
      msg: 'opened',
      room: connection.room,
      replica: this.replica,
      connection: connection.id,
    });
  }

  refused(refusal: Refused): void {
    this.logger.log({
      msg: 'refused',
      room: refusal.room,
      replica: this.replica,
      code: refusal.code,
      reason: refusal.reason,
    });
  }

  closed(connection: ChatConnection, durationMs: number): void {
    this.logger.log({
      msg: 'closed',
      room: connection.room,
      replica: this.replica,
      connection: connection.id,
      code: connection.closeCode ?? null,
      durationMs,
    });
  }
}
