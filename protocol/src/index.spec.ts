import * as protocol from './index';

describe('@taco/protocol public surface', () => {
  test.each([
    'CloseCode',
    'closeAction',
    'decodeClientFrame',
    'decodeServerFrame',
    'encodeFrame',
    'errorFrame',
    'BINARY_FRAME_ERROR',
    'RATE_LIMITED_ERROR',
    'UNAVAILABLE_ERROR',
    'RENAME_REFUSED_ERROR',
    'NAME_TAKEN_ERROR',
    'TOKEN_MAX_LENGTH',
    'TYPING_STALE_MS',
    'TYPING_IDLE_MS',
    'CloseReason',
    'FrameErrorMessage',
    'FrameType',
    'CLIENT_FRAME_TYPES',
    'ErrorCode',
    'isHistoryFrame',
    'ApiPath',
    'WebRoute',
    'parseSocketPath',
    'NAME_TAKEN_MESSAGE',
    'RATE_LIMITED_MESSAGE',
    'MESSAGE_MAX_LENGTH',
    'RATE_LIMITS',
    'decideReconnect',
    'DEFAULT_RECONNECT_POLICY',
    'generateRoomName',
    'COLOURS',
    'ANIMALS',
    'ValidationMessage',
    'validateRoomName',
    'validateUserName',
    'normalizeUserName',
    'userNameKey',
    'isSameUserName',
    'codePointLength',
    'FORBIDDEN_NAME_CHARACTERS',
  ])('exports %s', (name) => {
    expect(protocol).toHaveProperty(name);
    expect((protocol as Record<string, unknown>)[name]).toBeDefined();
  });

  test('tells ciphertext bodies by their shape, and leaves the construction to its own entry', () => {
    expect(protocol).toHaveProperty('isCiphertextBody');
    expect(protocol).toHaveProperty('isRoomKey');
    expect(protocol).toHaveProperty('isKeyCheck');
    // `@taco/protocol/e2e-crypto`: a client loads the keys and the cipher only when it needs them.
    expect(protocol).not.toHaveProperty('roomCipher');
    expect(protocol).not.toHaveProperty('newRoomKey');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const entry = require('../e2e-crypto/package.json') as { main: string; types: string };
    expect(entry).toEqual({ main: '../dist/e2e-crypto.js', types: '../dist/e2e-crypto.d.ts' });
  });

  test('has no runtime dependencies', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../package.json') as { dependencies?: Record<string, string> };
    expect(pkg.dependencies ?? {}).toEqual({});
  });
});
