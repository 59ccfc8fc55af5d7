import {
  type CreateRoomRequest,
  ENCRYPTED_FIELD_MESSAGE,
  isKeyCheck,
  KEY_CHECK_FIELD_MESSAGE,
} from '@taco/protocol';
import { IsBoolean, IsOptional, ValidateIf } from 'class-validator';
import { type NewRoom } from '../../bus/room-settings.port';
import { IsKeyCheck, IsRoomName, IsUserName } from '../name.validators';

/**
 * `POST /api/room`: `sender`, or `sender_id` in its place, and the room's settings (§2.2).
 * `disappear_after` is checked against this deployment's choices by the controller.
 */
export class CreateRoomDto implements CreateRoomRequest {
  @IsRoomName()
  room_id: string;

  @ValidateIf((dto: CreateRoomDto) => dto.sender !== undefined || dto.sender_id === undefined)
  @IsUserName()
  sender?: string;

  @ValidateIf((dto: CreateRoomDto) => dto.sender === undefined && dto.sender_id !== undefined)
  @IsUserName()
  sender_id?: string;

  @IsOptional()
  @IsBoolean({ message: ENCRYPTED_FIELD_MESSAGE })
  encrypted?: boolean;

  @ValidateIf((dto: CreateRoomDto) => dto.encrypted === true)
  @IsKeyCheck({ message: KEY_CHECK_FIELD_MESSAGE })
  key_check?: string;

  disappear_after?: number;

  get senderName(): string {
    return this.sender ?? this.sender_id ?? '';
  }

  /** The settings asked for: a plain room that never forgets, unless the body says otherwise. */
  get settings(): NewRoom {
    const encrypted = this.encrypted === true;
    return {
      encrypted,
      keyCheck: encrypted && isKeyCheck(this.key_check) ? this.key_check : null,
      disappearAfter: typeof this.disappear_after === 'number' ? this.disappear_after : 0,
    };
  }

  /** Whether the body asked for anything but the default settings (§2.2: a 409 if the room exists). */
  get asksForSettings(): boolean {
    const { encrypted, disappearAfter } = this.settings;
    return encrypted || disappearAfter !== 0;
  }
}
