import { ConflictException, Injectable } from '@nestjs/common';
import { NAME_TAKEN_MESSAGE, normalizeUserName } from '@taco/protocol';
import { PresenceStore } from '../bus/presence.port';
import { RoomTokenService } from './room-token.service';

export interface IssuedCredentials {
  /** The trimmed user name the token carries. */
  name: string;
  token: string;
}

/** Issues room tokens. Rooms exist implicitly: the first message creates their history. */
@Injectable()
export class RoomsService {
  constructor(
    private readonly presence: PresenceStore,
    private readonly tokens: RoomTokenService,
  ) {}

  /** A token for `rawName` in `room`, unless someone connected there right now uses that name. */
  async issue(room: string, rawName: string): Promise<IssuedCredentials> {
    const name = normalizeUserName(rawName);
    if (await this.presence.isPresent(room, name)) {
      throw new ConflictException(NAME_TAKEN_MESSAGE);
    }
    return { name, token: this.tokens.sign(room, name) };
  }
}
