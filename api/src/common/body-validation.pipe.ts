import {
  type ArgumentMetadata,
  BadRequestException,
  Injectable,
  ValidationPipe,
} from '@nestjs/common';
import { BODY_NOT_OBJECT_MESSAGE } from '@taco/protocol';

/** Request bodies are two short names; anything larger is refused (413). */
export const BODY_LIMIT_BYTES = 4096;

/** A request's body as the routes read it: none is `{}`, anything but a JSON object `null`. */
export function bodyObject(value: unknown): object | null {
  const body: unknown = value ?? {};
  return typeof body === 'object' && !Array.isArray(body) ? body : null;
}

/**
 * Validates request bodies against their DTOs. A body that is not a JSON object is refused with
 * a clear message; a missing body is validated as an empty object, so each field says what it lacks.
 */
@Injectable()
export class BodyValidationPipe extends ValidationPipe {
  constructor() {
    super({ transform: true, stopAtFirstError: true, forbidUnknownValues: false });
  }

  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return Promise.resolve(value);
    const body = bodyObject(value);
    if (body === null) throw new BadRequestException([BODY_NOT_OBJECT_MESSAGE]);
    return super.transform(body, metadata) as Promise<unknown>;
  }
}
