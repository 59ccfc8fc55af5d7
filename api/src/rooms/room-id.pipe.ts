import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { validateRoomName } from '@taco/protocol';

/** Validates a room id taken from the path, answering like the body validation does. */
@Injectable()
export class RoomIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = validateRoomName(value);
    if (problem !== null) throw new BadRequestException([problem]);
    return value;
  }
}
