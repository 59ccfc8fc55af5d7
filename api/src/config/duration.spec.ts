import { parseDuration } from './duration';

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['90', 90_000],
    ['90s', 90_000],
    ['15m', 900_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['1.5h', 5_400_000],
    [' 2m ', 120_000],
    ['3650d', 315_360_000_000],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    '',
    'h',
    '-1s',
    '0',
    '0s',
    '5 weeks',
    '1e3',
    'NaN',
    '5y',
    '3651d',
    '10000000000000000s',
  ])('refuses %p', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});
