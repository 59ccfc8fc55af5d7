import { ANIMALS, COLOURS, generateRoomName } from './room-names';
import { validateRoomName } from './validation';

/** A `random` that returns the given values in turn. */
function sequence(...values: number[]): () => number {
  let index = 0;
  return () => {
    const value = values[index];
    if (value === undefined) throw new Error('random called more often than expected');
    index++;
    return value;
  };
}

describe('word lists', () => {
  test.each([
    ['COLOURS', COLOURS],
    ['ANIMALS', ANIMALS],
  ])('%s holds lower-case single words without duplicates', (_name, words) => {
    expect(words.length).toBeGreaterThan(10);
    for (const word of words) expect(word).toMatch(/^[a-z]+$/);
    expect(new Set(words).size).toBe(words.length);
  });

  test('make well over 100,000 names, none written twice, each a valid room id', () => {
    expect(COLOURS.length * ANIMALS.length).toBeGreaterThan(100_000);
    expect(COLOURS.filter((word) => ANIMALS.includes(word))).toEqual([]);
    const longest = `${[...COLOURS].sort((a, b) => b.length - a.length)[0]}-${
      [...ANIMALS].sort((a, b) => b.length - a.length)[0]
    }`;
    expect(validateRoomName(longest)).toBeNull();
  });

  test('the spec example teal-otter can be generated', () => {
    expect(COLOURS).toContain('teal');
    expect(ANIMALS).toContain('otter');
  });
});

describe('generateRoomName', () => {
  test('has the form colour-animal', () => {
    const names = Array.from({ length: 200 }, () => generateRoomName());
    const malformed = names.filter((name) => {
      const [colour = '', animal = '', ...rest] = name.split('-');
      return (
        !/^[a-z]+-[a-z]+$/.test(name) ||
        !COLOURS.includes(colour) ||
        !ANIMALS.includes(animal) ||
        rest.length > 0
      );
    });
    expect(malformed).toEqual([]);
  });

  test('uses Math.random when no random is given', () => {
    const spy = jest.spyOn(Math, 'random').mockReturnValue(0);
    try {
      expect(generateRoomName()).toBe(`${COLOURS[0]}-${ANIMALS[0]}`);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  test('is deterministic for an injected random: colour first, then animal', () => {
    const colourIndex = COLOURS.indexOf('teal');
    const animalIndex = ANIMALS.indexOf('otter');
    const random = sequence(
      (colourIndex + 0.5) / COLOURS.length,
      (animalIndex + 0.5) / ANIMALS.length,
    );
    expect(generateRoomName(random)).toBe('teal-otter');
  });

  test('the same random values give the same name', () => {
    expect(generateRoomName(sequence(0.3, 0.7))).toBe(generateRoomName(sequence(0.3, 0.7)));
  });

  test('random 0 picks the first entries', () => {
    expect(generateRoomName(() => 0)).toBe(`${COLOURS[0]}-${ANIMALS[0]}`);
    expect(generateRoomName(() => 0)).toBe('amber-aardvark');
  });

  test('random 0.9999999 picks the last entries', () => {
    expect(generateRoomName(() => 0.9999999)).toBe(`${COLOURS.at(-1)}-${ANIMALS.at(-1)}`);
    expect(generateRoomName(() => 0.9999999)).toBe('zinc-zorilla');
  });

  test('the largest double below 1 still picks the last entries', () => {
    const justBelowOne = 1 - Number.EPSILON / 2;
    expect(generateRoomName(() => justBelowOne)).toBe(`${COLOURS.at(-1)}-${ANIMALS.at(-1)}`);
  });

  test('a random that misbehaves and returns 1 still gives a real name', () => {
    expect(generateRoomName(() => 1)).toBe(`${COLOURS.at(-1)}-${ANIMALS.at(-1)}`);
  });

  test('every entry of each list can be reached', () => {
    COLOURS.forEach((colour, i) => {
      const name = generateRoomName(sequence((i + 0.5) / COLOURS.length, 0));
      expect(name).toBe(`${colour}-${ANIMALS[0]}`);
    });
    ANIMALS.forEach((animal, i) => {
      const name = generateRoomName(sequence(0, (i + 0.5) / ANIMALS.length));
      expect(name).toBe(`${COLOURS[0]}-${animal}`);
    });
  });

  test('every colour×animal combination is a valid room name', () => {
    const names = COLOURS.flatMap((colour) => ANIMALS.map((animal) => `${colour}-${animal}`));
    expect(names).toHaveLength(COLOURS.length * ANIMALS.length);
    expect(names.filter((name) => validateRoomName(name) !== null)).toEqual([]);
    expect(names.filter((name) => !/^[a-z]+-[a-z]+$/.test(name))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });

  test('the longest possible generated name fits the room id limit', () => {
    const longestColour = Math.max(...COLOURS.map((word) => word.length));
    const longestAnimal = Math.max(...ANIMALS.map((word) => word.length));
    expect(longestColour + 1 + longestAnimal).toBeLessThanOrEqual(40);
  });

  test('the shortest possible generated name meets the minimum length', () => {
    const shortestColour = Math.min(...COLOURS.map((word) => word.length));
    const shortestAnimal = Math.min(...ANIMALS.map((word) => word.length));
    expect(shortestColour + 1 + shortestAnimal).toBeGreaterThanOrEqual(3);
  });
});
