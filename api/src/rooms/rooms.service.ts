import {
  ConflictException,
  ForbiddenException,
  HttpException,
  HttpStatus,
  Injectable,
  Logger,
} from '@nestjs/common';
import {
  NAME_REMOVED_MESSAGE,
  NAME_TAKEN_MESSAGE,
  normalizeUserName,
  ROOM_EXISTS_MESSAGE,
  ROOM_LOCKED_MESSAGE,
  type RoomSettings,
} from '@taco/protocol';
import { nameClaim, nameForms } from '../bus/name-claim';
import {
  type CredentialsCheck,
  type NewRoom,
  type RoomRecord,
  RoomSettingsStore,
} from '../bus/room-settings.port';
import { orUnavailable } from '../common/storage-unavailable';
import { AppConfig } from '../config/app-config';
import { RoomTokenService } from './room-token.service';

export interface IssuedCredentials {
  /** The trimmed user name the token carries. */
  name: string;
  token: string;
  /** The room's settings, with its creator's name, as the credential calls answer them. */
  settings: RoomSettings;
}

/** The settings a room has when it has no record: made before records, or by §2.3 alone. */
const PLAIN: RoomRecord = {
  encrypted: false,
  keyCheck: null,
  locked: false,
  disappearAfter: 0,
  creator: null,
  creatorName: null,
};

/**
 * Issues room tokens and creates rooms (protocol/README.md §2.2, §2.3, §6.9–§6.11). A room made
 * by the create call has a settings record, and its creator's token holds the creator right; any
 * other room exists implicitly, as its first message makes its history.
 */
@Injectable()
export class RoomsService {
  private readonly logger = new Logger(RoomsService.name);

  constructor(
    private readonly config: AppConfig,
    private readonly rooms: RoomSettingsStore,
    private readonly tokens: RoomTokenService,
  ) {}

  /**
   * `POST /api/room`: makes the room with `settings` when it does not exist (the credential holds
   * its creator right), else credentials for it as `issue` gives them; 409 when settings were
   * `asked` for a room that exists.
   */
  async create(
    room: string,
    rawName: string,
    settings: NewRoom,
    asked: boolean,
  ): Promise<IssuedCredentials & { creator: boolean }> {
    const name = normalizeUserName(rawName);
    const jti = this.tokens.newHolder();
    const made = await orUnavailable(this.logger, 'Creating a room', () =>
      this.rooms.create(room, settings, nameClaim(name, jti)),
    );
    if (made.created) {
      const token = this.tokens.sign(room, name, jti);
      return { name, token, settings: this.view(made.record, true), creator: true };
    }
    if (asked) throw new ConflictException(ROOM_EXISTS_MESSAGE);
    const issued = this.credentials(room, name, await this.check(room, name, null));
    return { ...issued, creator: false };
  }

  /**
   * What a credential call for `name` needs, in one round trip: whether the name is taken or
   * barred, the room's record, and whether `bearer` (the holder of a token shown, if any) is a
   * member that was not removed; 503 when that cannot be told.
   */
  check(room: string, name: string, bearer: string | null): Promise<CredentialsCheck> {
    return orUnavailable(this.logger, 'Credentials check', () =>
      this.rooms.checkCredentials(room, nameForms(name), bearer),
    );
  }

  /**
   * Credentials for a trimmed `name` in `room`, in the order of §2.1: 423 in a locked room (unless
   * the caller showed its own credential), 403 for a barred name, 409 for a taken one.
   */
  credentials(room: string, name: string, found: CredentialsCheck): IssuedCredentials {
    if (found.record?.locked && !found.member) {
      throw new HttpException(ROOM_LOCKED_MESSAGE, HttpStatus.LOCKED);
    }
    if (found.barred) throw new ForbiddenException(NAME_REMOVED_MESSAGE);
    if (found.taken) throw new ConflictException(NAME_TAKEN_MESSAGE);
    return { name, token: this.tokens.sign(room, name), settings: this.view(found.record, true) };
  }

  /** The settings of a room that is not locked or does not exist, for `GET /api/room/:id`. */
  async settingsOf(room: string): Promise<RoomSettings | null> {
    const record = await orUnavailable(this.logger, 'Reading a room', () => this.rooms.get(room));
    return record === null ? null : this.view(record, false);
  }

  /** The `disappear_after` values a room may take here (§6.13). */
  get disappearChoices(): number[] {
    return [...this.config.disappearChoices];
  }

  /** A record as the HTTP answers carry it; `creator` only for a credential holder. */
  view(record: RoomRecord | null, withCreator: boolean): RoomSettings {
    const { encrypted, keyCheck, locked, disappearAfter, creatorName } = record ?? PLAIN;
    const settings: RoomSettings = {
      encrypted,
      key_check: keyCheck,
      locked,
      disappear_after: disappearAfter,
      disappear_choices: this.disappearChoices,
    };
    if (withCreator) settings.creator = creatorName;
    return settings;
  }
}
