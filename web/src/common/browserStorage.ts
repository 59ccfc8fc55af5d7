/**
 * Uses the browser's `localStorage`, or answers `refused` when the browser will not let the page
 * use it: with site data blocked, merely reading `window.localStorage` throws; a full quota or a
 * private window refuses writes. Whatever was to be kept then holds for this page only.
 */
export function withStorage<T>(act: (storage: Storage) => T, refused: T): T {
  try {
    return act(window.localStorage);
  } catch {
    return refused;
  }
}
