import {
  isKeyCheck,
  validateRoomName,
  validateUserName,
  type ValidationMessage,
} from '@taco/protocol';
import {
  registerDecorator,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';

/** A class-validator decorator from one of the protocol's validators, with its exact texts. */
function fromProtocol(name: string, validate: (value: unknown) => ValidationMessage | null) {
  return (options?: ValidationOptions): PropertyDecorator =>
    (target, propertyName) =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName: propertyName as string,
        options,
        validator: {
          validate: (value: unknown) => validate(value) === null,
          defaultMessage: (args?: ValidationArguments) => validate(args?.value) ?? '',
        },
      });
}

export const IsRoomName = fromProtocol('isRoomName', validateRoomName);
export const IsUserName = fromProtocol('isUserName', validateUserName);

/** An encrypted room's key check (protocol/README.md §6.12): 22 base64url characters. */
export function IsKeyCheck(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isKeyCheck',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: { validate: (value: unknown) => isKeyCheck(value) },
    });
}
