import { NAME_MIN_LENGTH, ROOM_NAME_MAX_LENGTH, USER_NAME_MAX_LENGTH } from './limits';

/** The error texts the client shows and the server returns, word for word. */
export const ValidationMessage = {
  RoomNameTooShort: 'Your room name is too short',
  RoomNameTooLong: 'Your room name is too long',
  RoomNameInvalid: 'Invalid room name',
  UserNameTooShort: 'Your user name is too short',
  UserNameTooLong: 'Your user name is too long',
  UserNameInvalid: 'Invalid user name',
} as const;

export type ValidationMessage = (typeof ValidationMessage)[keyof typeof ValidationMessage];

/** Characters refused in room names and user names. */
export const FORBIDDEN_NAME_CHARACTERS = '~`!@#$%^&*+=[]\\\';,/{}|":<>?()';

const FORBIDDEN = new Set(FORBIDDEN_NAME_CHARACTERS);

/**
 * Characters that are invisible, reorder text or break lines: controls (Cc), format characters
 * (Cf: zero-width, bidi controls, soft hyphen, BOM), lone surrogates (Cs), line and paragraph
 * separators, the blank "letters" (Hangul fillers, braille blank) used to fake an empty name, and
 * the marks Unicode says to ignore (combining grapheme joiner, Khmer inherent vowels, Mongolian
 * variation selectors). The emoji variation selectors stay allowed (a phone types "❤️" with one);
 * `userNameKey` ignores them instead.
 */
const INVISIBLE_CLASS = '\\p{Cc}\\p{Cf}\\p{Cs}\\p{Zl}\\p{Zp}\\u115F\\u1160\\u3164\\uFFA0\\u2800';
const INVISIBLE = new RegExp(
  `[${INVISIBLE_CLASS}]|\\u034F|[\\u17B4\\u17B5]|[\\u180B-\\u180F]`,
  'u',
);
/** Variation selectors: the standardized and emoji ones, and the ideographic supplement. */
const VARIATION_SELECTOR = '[\\uFE00-\\uFE0F\\u{E0100}-\\u{E01EF}]';
/**
 * Code points a name or room id must not hold because no one can see them or what they are:
 * unassigned ones (Cn, noncharacters included: a future font may draw anything, today's draw
 * nothing), and those Unicode says to render as nothing (Default_Ignorable_Code_Point: U+2065,
 * U+FFF0, the tags U+E0000–U+E0FFF …), so that "Alice" and "Alice" plus one of them never stand
 * side by side. A variation selector is allowed only where Unicode defines one to choose a glyph:
 * right after an emoji ("❤️") or an ideograph.
 */
const UNSEEN = new RegExp(
  `\\p{Cn}|(?<![\\p{Emoji}\\p{Ideographic}])${VARIATION_SELECTOR}|(?!${VARIATION_SELECTOR})\\p{Default_Ignorable_Code_Point}`,
  'u',
);
/**
 * A character that shows something by itself: not whitespace, not one of the characters above,
 * and not a combining mark (which only changes the character before it).
 */
const SHOWS_SOMETHING = new RegExp(`[^\\s\\p{M}${INVISIBLE_CLASS}]`, 'u');
/** Variation selectors (emoji or text presentation of the character before), seen as nothing. */
const VARIATION_SELECTORS = /[\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]/g;
const SPACE_RUN = / {2,}/g;
const WHITESPACE = /\s/u;
/** Any whitespace except the plain space (U+0020), which user names may contain. */
const WHITESPACE_OTHER_THAN_SPACE = /[^\S ]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Whether `text` shows nothing: empty, or only whitespace, invisible characters and combining
 * marks. Such a message is empty, and such a name is no name.
 */
export function isBlankText(text: string): boolean {
  return !SHOWS_SOMETHING.test(text);
}

/** Length in Unicode code points, so an emoji counts as one character. */
export function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

function hasForbiddenCharacter(text: string): boolean {
  for (const char of text) {
    if (FORBIDDEN.has(char)) return true;
  }
  return false;
}

/** The first problem with a room id, or `null` when it is valid. Room ids are not trimmed. */
export function validateRoomName(value: unknown): ValidationMessage | null {
  if (value === undefined || value === null || value === '') {
    return ValidationMessage.RoomNameTooShort;
  }
  if (typeof value !== 'string') return ValidationMessage.RoomNameInvalid;
  const length = codePointLength(value);
  if (length < NAME_MIN_LENGTH) return ValidationMessage.RoomNameTooShort;
  if (length > ROOM_NAME_MAX_LENGTH) return ValidationMessage.RoomNameTooLong;
  if (
    WHITESPACE.test(value) ||
    INVISIBLE.test(value) ||
    UNSEEN.test(value) ||
    hasForbiddenCharacter(value) ||
    !LETTER_OR_DIGIT.test(value)
  ) {
    return ValidationMessage.RoomNameInvalid;
  }
  return null;
}

/** The form of a user name that is stored and carried by tokens: trimmed. */
export function normalizeUserName(name: string): string {
  return name.trim();
}

/**
 * The key two user names are compared by: trimmed and case-insensitive, and blind to what does
 * not tell two names apart on screen: compatibility forms (full-width letters, ligatures: NFKC),
 * variation selectors, and runs of spaces (a browser shows "Ann  Lee" as "Ann Lee"). Names of one
 * key are one participant. Letters of other scripts drawn alike ("Аlice" with a Cyrillic А) are
 * another matter: the server refuses them beside the name they imitate by their UTS #39 skeleton
 * (protocol/README.md §3.4).
 */
export function userNameKey(name: string): string {
  return normalizeUserName(name)
    .normalize('NFKC')
    .replace(VARIATION_SELECTORS, '')
    .replace(SPACE_RUN, ' ')
    .trim()
    .toLowerCase();
}

/** Whether two user names name the same participant (compared by `userNameKey`): "is this me?". */
export function isSameUserName(a: string, b: string): boolean {
  return userNameKey(a) === userNameKey(b);
}

/** The first problem with a user name (judged after trimming), or `null` when it is valid. */
export function validateUserName(value: unknown): ValidationMessage | null {
  if (value === undefined || value === null) return ValidationMessage.UserNameTooShort;
  if (typeof value !== 'string') return ValidationMessage.UserNameInvalid;
  const name = normalizeUserName(value);
  const length = codePointLength(name);
  if (length < NAME_MIN_LENGTH) return ValidationMessage.UserNameTooShort;
  if (length > USER_NAME_MAX_LENGTH) return ValidationMessage.UserNameTooLong;
  if (
    WHITESPACE_OTHER_THAN_SPACE.test(name) ||
    INVISIBLE.test(name) ||
    UNSEEN.test(name) ||
    hasForbiddenCharacter(name) ||
    isBlankText(name)
  ) {
    return ValidationMessage.UserNameInvalid;
  }
  return null;
}
