import { Logger } from '@nestjs/common';
import { type ChatConnection } from './chat-connection';
import { type Refused } from './connection-admission';

/**
 * One line per connection opened, refused or closed (`msg`), with the room, connection, close code
 * and duration (`durationMs`) as fields (every line names its replica already). Never a token,
 * never a message.
 */
export class ConnectionLog {
  private readonly logger = new Logger('Connection');

  opened(connection: ChatConnection): void {
    this.logger.log({
      msg: 'opened',
      room: connection.room,
      connection: connection.id,
    });
  }

  refused(refusal: Refused): void {
    this.logger.log({
      msg: 'refused',
      room: refusal.room,
      code: refusal.code,
      reason: refusal.reason,
    });
  }

  closed(connection: ChatConnection, durationMs: number): void {
    this.logger.log({
      msg: 'closed',
      room: connection.room,
      connection: connection.id,
      code: connection.closeCode ?? null,
      durationMs,
    });
  }
}
