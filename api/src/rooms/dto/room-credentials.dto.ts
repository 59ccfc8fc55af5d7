import { type RoomCredentialsRequest } from '@taco/protocol';
import { ValidateIf } from 'class-validator';
import { IsUserName } from '../name.validators';

/** `POST /api/room/:room_id`: `sender_id`, or `sender` in its place. */
export class RoomCredentialsDto implements RoomCredentialsRequest {
  @ValidateIf((dto: RoomCredentialsDto) => dto.sender_id !== undefined || dto.sender === undefined)
  @IsUserName()
  sender_id?: string;

  @ValidateIf((dto: RoomCredentialsDto) => dto.sender_id === undefined && dto.sender !== undefined)
  @IsUserName()
  sender?: string;

  get senderName(): string {
    return this.sender_id ?? this.sender ?? '';
  }
}
