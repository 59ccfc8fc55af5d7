/**
 * Helpers and character tables shared by the protocol's own spec files (`codec.*.spec.ts`,
 * `validation.*.spec.ts`).
 *
 * Test support only, and unlike `growth.ts` (`@taco/protocol/testing`) not published:
 * `tsconfig.build.json` leaves it out of `dist` as it leaves out the spec files, and the package's
 * index does not export it.
 */

import fc from 'fast-check';
import { type DecodeResult, type FrameError, decodeClientFrame } from '../codec';
import { type ClientFrame } from '../frames';

/** Any code point, lone surrogates included (fast-check's `binary` unit is slow to set up). */
export const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .map((n) => String.fromCodePoint(n));

// Codec: decoding a client frame and taking its result apart.

/** Decodes a client frame written as a JavaScript value. */
export function decode(value: unknown): DecodeResult<ClientFrame> {
  return decodeClientFrame(JSON.stringify(value));
}

/** The error of a decode result; throws if it decoded to a frame. */
export function errorOf<T>(result: DecodeResult<T>): FrameError {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.frame)}`);
  return result.error;
}

/** The frame of a decode result; throws if it is an error. */
export function frameOf<T>(result: DecodeResult<T>): T {
  if (!result.ok) throw new Error(`expected a frame, got ${JSON.stringify(result.error)}`);
  return result.frame;
}

// Names: characters and values the room and user name validators refuse or accept.

/** The spec's list, written out here so that a character dropped from the source is caught. */
export const FORBIDDEN = [
  '~', '`', '!', '@', '#', '$', '%', '^', '&', '*', '+', '=', '[', ']', '\\', "'", ';', ',', '/',
  '{', '}', '|', '"', ':', '<', '>', '?', '(', ')',
]; // prettier-ignore

/** Whitespace other than a plain space: refused inside any name. */
export const WHITESPACE_BUT_SPACE: Array<[string, string]> = [
  ['tab', '\t'],
  ['newline', '\n'],
  ['carriage return', '\r'],
  ['vertical tab', '\v'],
  ['form feed', '\f'],
  ['no-break space U+00A0', '\u00A0'],
  ['line separator U+2028', '\u2028'],
  ['paragraph separator U+2029', '\u2029'],
  ['ideographic space U+3000', '\u3000'],
  ['thin space U+2009', '\u2009'],
  ['narrow no-break space U+202F', '\u202F'],
];

export const ZERO_WIDTH: Array<[string, string]> = [
  ['U+200B zero-width space', '\u200B'],
  ['U+200C zero-width non-joiner', '\u200C'],
  ['U+200D zero-width joiner', '\u200D'],
  ['U+FEFF zero-width no-break space', '\uFEFF'],
  ['U+2060 word joiner', '\u2060'],
  ['U+00AD soft hyphen', '\u00AD'],
];

export const BIDI_CONTROLS: Array<[string, string]> = [
  ['U+200E left-to-right mark', '\u200E'],
  ['U+200F right-to-left mark', '\u200F'],
  ['U+202A LRE', '\u202A'],
  ['U+202B RLE', '\u202B'],
  ['U+202C PDF', '\u202C'],
  ['U+202D LRO', '\u202D'],
  ['U+202E RLO', '\u202E'],
  ['U+2066 LRI', '\u2066'],
  ['U+2067 RLI', '\u2067'],
  ['U+2068 FSI', '\u2068'],
  ['U+2069 PDI', '\u2069'],
];

export const CONTROLS: Array<[string, string]> = [
  ['NUL', '\u0000'],
  ['U+0001', '\u0001'],
  ['escape', '\u001B'],
  ['U+001F', '\u001F'],
  ['DEL', '\u007F'],
  ['U+0085 next line', '\u0085'],
  ['U+009F', '\u009F'],
  ['carriage return', '\r'],
  ['backspace', '\b'],
];

export const LONE_SURROGATES: Array<[string, string]> = [
  ['high surrogate U+D800', '\uD800'],
  ['high surrogate U+DBFF', '\uDBFF'],
  ['low surrogate U+DC00', '\uDC00'],
  ['low surrogate U+DFFF', '\uDFFF'],
];

/** Characters that render as nothing and could fake an empty or look-alike name. */
export const BLANK_LETTERS: Array<[string, string]> = [
  ['Hangul choseong filler U+115F', '\u115F'],
  ['Hangul jungseong filler U+1160', '\u1160'],
  ['Hangul filler U+3164', '\u3164'],
  ['halfwidth Hangul filler U+FFA0', '\uFFA0'],
  ['braille blank U+2800', '\u2800'],
  ['combining grapheme joiner U+034F', '\u034F'],
  ['Khmer inherent vowel U+17B4', '\u17B4'],
  ['Khmer inherent vowel U+17B5', '\u17B5'],
  ['Mongolian free variation selector U+180B', '\u180B'],
];

/**
 * Code points that are unassigned or that Unicode says to render as nothing
 * (Default_Ignorable_Code_Point): "Alice" with one of them looks exactly like "Alice".
 */
export const UNSEEN_CODE_POINTS: Array<[string, string]> = [
  ['unassigned default-ignorable U+2065', '\u2065'],
  ['unassigned default-ignorable U+FFF0', '\uFFF0'],
  ['unassigned default-ignorable U+FFF8', '\uFFF8'],
  ['unassigned U+0378', '\u0378'],
  ['unassigned U+05FF', '\u05FF'],
  ['noncharacter U+FDD0', '\uFDD0'],
  ['noncharacter U+FFFF', '\uFFFF'],
  ['noncharacter U+1FFFE', '\u{1FFFE}'],
  ['unassigned plane 3 U+3FFFD', '\u{3FFFD}'],
  ['language tag U+E0001', '\u{E0001}'],
  ['reserved tag U+E0000', '\u{E0000}'],
  ['tag letter U+E0041', '\u{E0041}'],
  ['unassigned default-ignorable U+E0080', '\u{E0080}'],
  ['unassigned default-ignorable U+E0FFF', '\u{E0FFF}'],
  ['a variation selector after a letter', '\uFE0F'],
  ['a text variation selector after a letter', '\uFE0E'],
  ['an ideographic variation selector after a letter', '\u{E0100}'],
  ['Hangul filler U+3164', '\u3164'],
];

/** User names with emoji as a phone types them: variation selector, skin tone, combining mark. */
export const PHONE_EMOJI_NAMES = ['Ann ❤\uFE0F', '👍🏽👍🏽👍🏽', '🌮🌮🌮', 'Zoe\u0308'];

/** The values a validator reads as a missing name. */
export const MISSING_VALUES: Array<[string, unknown]> = [
  ['undefined', undefined],
  ['null', null],
];

/** Values of types other than string; the object, array, boxed string and symbol hold `name`. */
export function nonStringValues(name: string): Array<[string, unknown]> {
  return [
    ['a number', 12345],
    ['zero', 0],
    ['a boolean', true],
    ['an object', { name }],
    ['an empty object', {}],
    ['an array', [name]],
    ['an empty array', []],
    ['a boxed string', new String(name)],
    ['a symbol', Symbol(name)],
    ['a bigint', BigInt(123)],
  ];
}
