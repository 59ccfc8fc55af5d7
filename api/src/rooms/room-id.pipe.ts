import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { API_PREFIX, validateRoomName, ValidationMessage } from '@taco/protocol';
import { type RequestHandler } from 'express';

/** Validates a room id taken from the path, answering like the body validation does. */
@Injectable()
export class RoomIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = validateRoomName(value);
    if (problem !== null) throw new BadRequestException([problem]);
    return value;
  }
}

/** What every room route's path starts with; the room id follows. */
export const ROOM_PATH = `${API_PREFIX}/room/`;

/**
 * Answers a room path whose id is not valid percent-encoding (`%ED%A0%80`, a cut-off `%E0%A4%A`)
 * as the pipe answers any other bad id, 400 `Invalid room name`, instead of leaving Express's
 * router to answer it in its own words (or not to match it at all).
 */
export function undecodableRoomIds(): RequestHandler {
  return (request, _response, next) => {
    if (!request.path.startsWith(ROOM_PATH)) return next();
    const segment = request.path.slice(ROOM_PATH.length).split('/', 1)[0] ?? '';
    try {
      decodeURIComponent(segment);
    } catch {
      return next(new BadRequestException([ValidationMessage.RoomNameInvalid]));
    }
    next();
  };
}
