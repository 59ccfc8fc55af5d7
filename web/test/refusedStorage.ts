/**
 * Makes `window.localStorage` refuse the page, as a browser with site data blocked does (merely
 * reading the property throws a `SecurityError`). Returns the function that gives it back.
 */
export function refuseStorage(): () => void {
  const own = Object.getOwnPropertyDescriptor(window, 'localStorage');
  Object.defineProperty(window, 'localStorage', {
    configurable: true,
    get() {
      throw new DOMException('The operation is insecure.', 'SecurityError');
    },
  });
  return () => {
    if (own) Object.defineProperty(window, 'localStorage', own);
    else delete (window as { localStorage?: unknown }).localStorage;
  };
}
