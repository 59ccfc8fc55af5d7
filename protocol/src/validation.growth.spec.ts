import { LINEAR_RATIO_LIMIT, measureGrowth, randomMix, repeatTo } from './testing/growth';
import {
  FORBIDDEN_NAME_CHARACTERS,
  codePointLength,
  isBlankText,
  isSameUserName,
  userNameKey,
  validateRoomName,
  validateUserName,
} from './validation';

/**
 * Names and message bodies come from anyone: each check of them must take time linear in what it
 * is given, however long (a name is judged before its length is refused). Each check runs on
 * hostile text at n and 8n characters; see ./testing/growth for how it is timed.
 */

const CHECKS: [string, (text: string) => unknown][] = [
  ['validateUserName', validateUserName],
  ['validateRoomName', validateRoomName],
  ['userNameKey', userNameKey],
  ['isSameUserName', (text) => isSameUserName(text, `${text}x`)],
  ['isBlankText', isBlankText],
  ['codePointLength', codePointLength],
];

const repeat =
  (unit: string, prefix = '', suffix = '') =>
  (size: number) =>
    prefix + repeatTo(unit, size) + suffix;

const TEXTS: [string, (size: number) => string][] = [
  ['spaces, then a letter', repeat(' ', '', 'a')],
  ['a letter, spaces, then a forbidden character', repeat(' ', 'a', '!')],
  ['runs of two spaces', repeat('a  ')],
  ['combining marks', repeat('\u0301', 'a')],
  ['combining marks alone', repeat('\u0301')],
  ['letters, then a forbidden character', repeat('a', '', FORBIDDEN_NAME_CHARACTERS.at(-1))],
  ['zero-width spaces, then a letter', repeat('\u200B', '', 'x')],
  ['Hangul fillers', repeat('\u3164')],
  ['Cyrillic and Greek lookalikes', repeat('АВЕКМНОРСТХаеорсхΑΒΕΖΗΙΚΜΝΟΡΤΥΧ')],
  ['emoji with variation selectors', repeat('❤\uFE0F')],
  ['full-width letters and ligatures', repeat('Ａｎｎﬁ')],
  ['lone surrogates', repeat('\uD800')],
  ['tabs and line breaks', repeat('\t\n\r\u2028')],
  [
    'a random mix',
    randomMix(['a', ' ', '  ', '\u0301', '\u200B', 'А', '❤\uFE0F', 'Ａ', '!', '\t', '😀'], 7),
  ],
];

describe('checks of names and text grow linearly with the text', () => {
  describe.each(CHECKS)('%s', (_name, check) => {
    it.each(TEXTS)('on %s', (_text, make) => {
      const growth = measureGrowth(make, check, { targetMs: 0.3 });
      expect(growth.ratio).toBeLessThan(LINEAR_RATIO_LIMIT);
    });
  });
});
