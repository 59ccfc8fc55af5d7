import { validateRoomName, validateUserName } from '@taco/protocol';

/**
 * Every property name of `Object.prototype` (`constructor`, `__proto__`, `toString`, …), read from
 * the runtime so the list never goes stale: as a key of a plain object, or looked up with `in`,
 * each of them finds something that was never put there.
 */
const PROTOTYPE_NAMES = [
  ...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__']),
];

/** Those the protocol accepts as user names. */
export const PROTOTYPE_USER_NAMES = PROTOTYPE_NAMES.filter((n) => validateUserName(n) === null);

/** Those the protocol accepts as room ids. */
export const PROTOTYPE_ROOM_IDS = PROTOTYPE_NAMES.filter((n) => validateRoomName(n) === null);
