import { ConflictException, Injectable, Logger } from '@nestjs/common';
import { NAME_TAKEN_MESSAGE, normalizeUserName } from '@taco/protocol';
import { PresenceStore } from '../bus/presence.port';
import { orUnavailable } from '../common/storage-unavailable';
import { RoomTokenService } from './room-token.service';

export interface IssuedCredentials {
  /** The trimmed user name the token carries. */
  name: string;
  token: string;
}

/** Issues room tokens. Rooms exist implicitly: the first message creates their history. */
@Injectable()
export class RoomsService {
  private readonly logger = new Logger(RoomsService.name);

  constructor(
    private readonly presence: PresenceStore,
    private readonly tokens: RoomTokenService,
  ) {}

  /** A token for `rawName` in `room`, unless the name is taken there right now (`isTaken`). */
  async issue(room: string, rawName: string): Promise<IssuedCredentials> {
    const name = normalizeUserName(rawName);
    return this.credentials(room, name, await this.isTaken(room, name));
  }

  /**
   * Whether someone connected in `room` right now uses `name`, or a name that passes for it (the
   * same key or skeleton); 503 when that cannot be told.
   */
  isTaken(room: string, name: string): Promise<boolean> {
    return orUnavailable(this.logger, 'Presence check', () => this.presence.isTaken(room, name));
  }

  /** Credentials for a trimmed `name` in `room`: 409 when the presence check found it `taken`. */
  credentials(room: string, name: string, taken: boolean): IssuedCredentials {
    if (taken) throw new ConflictException(NAME_TAKEN_MESSAGE);
    return { name, token: this.tokens.sign(room, name) };
  }
}
