import { type RoomCredentialsRequest } from '@taco/protocol';
import { ValidateIf } from 'class-validator';
import { IsUserName } from '../name.validators';

/**
 * The field of a credentials body that carries the name, and is validated: `sender_id`, or
 * `sender` when only that is given.
 */
export function credentialsNameField(
  body: Readonly<Partial<Record<keyof RoomCredentialsRequest, unknown>>>,
): keyof RoomCredentialsRequest {
  return body.sender_id !== undefined || body.sender === undefined ? 'sender_id' : 'sender';
}

/** `POST /api/room/:room_id`: `sender_id`, or `sender` in its place. */
export class RoomCredentialsDto implements RoomCredentialsRequest {
  @ValidateIf((dto: RoomCredentialsDto) => credentialsNameField(dto) === 'sender_id')
  @IsUserName()
  sender_id?: string;

  @ValidateIf((dto: RoomCredentialsDto) => credentialsNameField(dto) === 'sender')
  @IsUserName()
  sender?: string;

  get senderName(): string {
    return this.sender_id ?? this.sender ?? '';
  }
}
