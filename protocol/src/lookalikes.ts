/**
 * Letters of other scripts that a screen shows as a Latin letter, mapped to that letter: the
 * Cyrillic and Greek capitals and small letters drawn like Latin ones, and the Latin dotless i.
 * A name such as "Аlice" with a Cyrillic А is then the same participant as "Alice" (see
 * `userNameKey`), so nobody can pass for someone else by swapping one letter. Cased pairs are
 * listed by form, before case folding: Greek capital Ν is drawn as N, its small ν as v.
 */
const LOOKALIKE_PAIRS: readonly (readonly [string, string])[] = [
  // Cyrillic capitals.
  ['А', 'A'],
  ['В', 'B'],
  ['Е', 'E'],
  ['Ѕ', 'S'],
  ['І', 'I'],
  ['Ј', 'J'],
  ['К', 'K'],
  ['М', 'M'],
  ['Н', 'H'],
  ['О', 'O'],
  ['Р', 'P'],
  ['С', 'C'],
  ['Т', 'T'],
  ['У', 'Y'],
  ['Х', 'X'],
  ['Ү', 'Y'],
  ['Һ', 'H'],
  ['Ӏ', 'I'],
  ['Ԛ', 'Q'],
  ['Ԝ', 'W'],
  // Cyrillic small letters.
  ['а', 'a'],
  ['е', 'e'],
  ['ѕ', 's'],
  ['і', 'i'],
  ['ј', 'j'],
  ['о', 'o'],
  ['р', 'p'],
  ['с', 'c'],
  ['у', 'y'],
  ['х', 'x'],
  ['ү', 'y'],
  ['һ', 'h'],
  ['ӏ', 'l'],
  ['ԁ', 'd'],
  ['ԛ', 'q'],
  ['ԝ', 'w'],
  // Greek capitals.
  ['Α', 'A'],
  ['Β', 'B'],
  ['Ε', 'E'],
  ['Ζ', 'Z'],
  ['Η', 'H'],
  ['Ι', 'I'],
  ['Κ', 'K'],
  ['Μ', 'M'],
  ['Ν', 'N'],
  ['Ο', 'O'],
  ['Ρ', 'P'],
  ['Τ', 'T'],
  ['Υ', 'Y'],
  ['Χ', 'X'],
  // Greek small letters.
  ['α', 'a'],
  ['ι', 'i'],
  ['κ', 'k'],
  ['ν', 'v'],
  ['ο', 'o'],
  ['ρ', 'p'],
  ['υ', 'u'],
  ['χ', 'x'],
  // Latin letters drawn like plain ones.
  ['ı', 'i'],
  ['ɑ', 'a'],
  ['ɡ', 'g'],
];

const LOOKALIKES = new Map(LOOKALIKE_PAIRS);
const LOOKALIKE = new RegExp(`[${LOOKALIKE_PAIRS.map(([from]) => from).join('')}]`, 'gu');

/** `text` with every letter of the table above replaced by the Latin letter it is drawn as. */
export function foldLookalikes(text: string): string {
  return text.replace(LOOKALIKE, (letter) => LOOKALIKES.get(letter) ?? letter);
}
