import { type RoomSettings } from '@taco/protocol';

/** The `disappear_after` values a test app offers: the defaults (protocol/README.md §2.5, §6.13). */
export const DISAPPEAR_CHOICES = [0, 3600, 86_400, 604_800];

/**
 * A room's settings as the HTTP answers carry them (protocol/README.md §6.9): a plain room's
 * defaults, as a room no create call made has them, with `changes` over them. `creator` is there
 * only when given, as in the answers to someone without a credential of the room.
 */
export function roomSettings(changes: Partial<RoomSettings> = {}): RoomSettings {
  return {
    encrypted: false,
    key_check: null,
    locked: false,
    disappear_after: 0,
    disappear_choices: DISAPPEAR_CHOICES,
    ...changes,
  };
}
