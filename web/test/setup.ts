import '@testing-library/jest-dom';
import { webcrypto } from 'node:crypto';

// jsdom's `crypto` has no `subtle`: end-to-end encrypted rooms (§6.12) run on Node's WebCrypto,
// the same API a browser gives.
if (!globalThis.crypto?.subtle) {
  Object.defineProperty(globalThis, 'crypto', { configurable: true, value: webcrypto });
}

// A guard against a hung test, not a speed check: typing through user-event in jsdom on a busy
// two-core machine can take longer than Jest's default 5 s.
jest.setTimeout(20_000);

// jsdom has no layout: media queries answer as on a desktop screen (every min-width matches).
Object.defineProperty(window, 'matchMedia', {
  configurable: true,
  value: (query: string): MediaQueryList => ({
    matches: /min-width/.test(query),
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }),
});
