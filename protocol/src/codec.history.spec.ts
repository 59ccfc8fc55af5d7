import { FrameErrorMessage, decodeClientFrame } from './codec';
import { decode, errorOf, frameOf } from './testing/spec-support';

describe('decodeClientFrame', () => {
  describe('5 history', () => {
    test.each([1, 2, 100, 499, 500])('count %i is accepted', (count) => {
      expect(frameOf(decode({ type: 5, count }))).toStrictEqual({ type: 5, count });
    });

    test.each<[string, unknown]>([
      ['missing', undefined],
      ['0', 0],
      ['501', 501],
      ['1.5', 1.5],
      ['"5"', '5'],
      ['-1', -1],
      ['-100', -100],
      ['null', null],
      ['true', true],
      ['an array', [5]],
      ['2^53', 2 ** 53],
      ['1e21', 1e21],
      ['1e308', 1e308],
      ['Number.MAX_VALUE', Number.MAX_VALUE],
    ])('count %s is a bad frame', (_label, count) => {
      expect(errorOf(decode({ type: 5, count }))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.count,
      });
    });

    test.each(['1e400', '-1e400', '-0.5', '100.000001', '1e-7'])(
      'count %s written in JSON is a bad frame',
      (count) => {
        expect(errorOf(decodeClientFrame(`{"type":5,"count":${count}}`)).code).toBe('bad_frame');
      },
    );

    test('count written as 5.0 is the whole number 5', () => {
      expect(frameOf(decodeClientFrame('{"type":5,"count":5.0}'))).toStrictEqual({
        type: 5,
        count: 5,
      });
    });

    test.each([0, 1, 42, 2 ** 53 - 1])('after %d is accepted', (after) => {
      expect(frameOf(decode({ type: 5, count: 10, after }))).toStrictEqual({
        type: 5,
        count: 10,
        after,
      });
    });

    test('after: null is treated as absent', () => {
      const frame = frameOf(decode({ type: 5, count: 10, after: null }));
      expect(frame).toStrictEqual({ type: 5, count: 10 });
      expect(Object.keys(frame)).toEqual(['type', 'count']);
    });

    test.each<[string, unknown]>([
      ['-1', -1],
      ['1.5', 1.5],
      ['"5"', '5'],
      ['true', true],
      ['an object', { seq: 5 }],
      ['an array', [5]],
      ['2^53', 2 ** 53],
      ['1e308', 1e308],
    ])('after %s is a bad frame', (_label, after) => {
      expect(errorOf(decode({ type: 5, count: 10, after }))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.after,
      });
    });

    test.each<[string, unknown]>([
      ['a number', 5],
      ['true', true],
      ['an object', { id: 'x' }],
      ['65 characters', 'e'.repeat(65)],
    ])('epoch %s is a bad frame', (_label, epoch) => {
      expect(errorOf(decode({ type: 5, count: 10, after: 3, epoch }))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.epoch,
      });
    });

    test('epoch: null is treated as absent; 64 characters are accepted', () => {
      expect(frameOf(decode({ type: 5, count: 10, epoch: null }))).toStrictEqual({
        type: 5,
        count: 10,
      });
      const epoch = 'e'.repeat(64);
      expect(frameOf(decode({ type: 5, count: 10, epoch }))).toStrictEqual({
        type: 5,
        count: 10,
        epoch,
      });
    });

    test('a bad count is reported before a bad after', () => {
      expect(errorOf(decode({ type: 5, count: 0, after: -1 })).message).toBe(
        FrameErrorMessage.count,
      );
    });
  });
});
