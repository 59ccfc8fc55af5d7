import { type CloseAction, CloseCode, closeAction } from './close-codes';

describe('CloseCode', () => {
  test('uses the documented numbers', () => {
    expect(CloseCode).toEqual({
      Normal: 1000,
      GoingAway: 1001,
      Abnormal: 1006,
      Policy: 1008,
      TooBig: 1009,
      Restart: 1012,
      TryAgainLater: 1013,
      Unauthorized: 4401,
      NameTaken: 4409,
      Removed: 4403,
      RateLimited: 4429,
    });
  });

  test('application codes are in the private range a browser may receive', () => {
    expect(CloseCode.Unauthorized).toBeGreaterThanOrEqual(4000);
    expect(CloseCode.Unauthorized).toBeLessThanOrEqual(4999);
    expect(CloseCode.NameTaken).toBeGreaterThanOrEqual(4000);
    expect(CloseCode.NameTaken).toBeLessThanOrEqual(4999);
    expect(CloseCode.RateLimited).toBeGreaterThanOrEqual(4000);
    expect(CloseCode.RateLimited).toBeLessThanOrEqual(4999);
  });
});

describe('closeAction', () => {
  test.each<[string, number, CloseAction]>([
    ['4401 unauthorized', 4401, 'reauthenticate'],
    ['4409 name taken', 4409, 'reauthenticate'],
    ['4403 removed', 4403, 'removed'],
    ['1000 normal', 1000, 'stop'],
    ['1008 policy', 1008, 'stop'],
    ['1012 restart', 1012, 'reconnect-now'],
    ['1001 going away', 1001, 'reconnect'],
    ['1006 abnormal', 1006, 'reconnect'],
    ['1009 too big', 1009, 'reconnect'],
    ['1011 internal error', 1011, 'reconnect'],
    ['1013 try again later', 1013, 'reconnect'],
    ['4429 rate limited', 4429, 'reconnect'],
  ])('%s → %s', (_label, code, action) => {
    expect(closeAction(code)).toBe(action);
  });

  test('every CloseCode value has the documented action', () => {
    const expected: Record<keyof typeof CloseCode, CloseAction> = {
      Normal: 'stop',
      GoingAway: 'reconnect',
      Abnormal: 'reconnect',
      Policy: 'stop',
      TooBig: 'reconnect',
      Restart: 'reconnect-now',
      TryAgainLater: 'reconnect',
      Unauthorized: 'reauthenticate',
      NameTaken: 'reauthenticate',
      Removed: 'removed',
      RateLimited: 'reconnect',
    };
    for (const [name, code] of Object.entries(CloseCode)) {
      expect([name, closeAction(code)]).toEqual([name, expected[name as keyof typeof CloseCode]]);
    }
  });

  test.each([1002, 1003, 1005, 1007, 1010, 1014, 1015, 3000, 4000, 4400, 4402, 4404, 4999, 0, -1])(
    'an unknown code %i falls back to the usual back-off',
    (code) => {
      expect(closeAction(code)).toBe('reconnect');
    },
  );
});
