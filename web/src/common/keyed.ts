/**
 * Maps in the store from strings people choose (room ids, user names, `client_id`s) to values.
 * They must stay plain JSON (Redux state, redux-persist, another tab's `persist:root`), so they
 * are plain objects, and a plain object already has `constructor`, `toString`, `__proto__` and
 * the rest of `Object.prototype`, all of them valid names and room ids: read as keys they find
 * functions, `in` says they are there (Redux Toolkit's entity adapters then take a newcomer for
 * someone known and never list them), and writing `__proto__` swaps the object's prototype (Immer
 * refuses it). So no such string is a key as it is: `keyOf` puts a `#` before it, and no property
 * of `Object.prototype` (nor redux-persist's `_persist`) starts with one. `Keyed` maps and entity
 * adapters with `Key` ids take nothing else: a bare string as a key does not compile.
 */
export type Key = `#${string}`;

/** A plain-JSON map from a string people choose (its `keyOf`) to a value. */
export type Keyed<T> = Record<Key, T>;

/** The key `id` is kept under. */
export function keyOf(id: string): Key {
  return `#${id}`;
}
