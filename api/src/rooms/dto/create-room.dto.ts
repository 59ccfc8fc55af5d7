import { type CreateRoomRequest } from '@taco/protocol';
import { ValidateIf } from 'class-validator';
import { IsRoomName, IsUserName } from '../name.validators';

/** `POST /api/room`: `sender`, or `sender_id` in its place. */
export class CreateRoomDto implements CreateRoomRequest {
  @IsRoomName()
  room_id: string;

  @ValidateIf((dto: CreateRoomDto) => dto.sender !== undefined || dto.sender_id === undefined)
  @IsUserName()
  sender?: string;

  @ValidateIf((dto: CreateRoomDto) => dto.sender === undefined && dto.sender_id !== undefined)
  @IsUserName()
  sender_id?: string;

  get senderName(): string {
    return this.sender ?? this.sender_id ?? '';
  }
}
