import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { refuseStorage } from '../../test/refusedStorage';
import { THEME_STORAGE_KEY } from './theme';
import { ThemeToggle } from './ThemeToggle';

/** A `prefers-color-scheme: dark` query the test can flip, as the system setting would. */
function systemDark(initially: boolean) {
  let matches = initially;
  const listeners = new Set<() => void>();
  const original = window.matchMedia;
  const fake = (query: string) =>
    ({
      get matches() {
        return query.includes('prefers-color-scheme: dark') ? matches : false;
      },
      media: query,
      addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
      removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
    }) as unknown as MediaQueryList;
  Object.defineProperty(window, 'matchMedia', { configurable: true, value: fake });
  return {
    set(dark: boolean) {
      matches = dark;
      act(() => listeners.forEach((listener) => listener()));
    },
    restore: () => {
      Object.defineProperty(window, 'matchMedia', { configurable: true, value: original });
    },
  };
}

const mode = () => document.documentElement.getAttribute('data-bs-theme');
const toggle = () => screen.getByRole('button', { name: 'Dark mode' });

describe('colour mode', () => {
  let system: ReturnType<typeof systemDark>;
  beforeEach(() => localStorage.clear());
  afterEach(() => system.restore());

  it("follows the system's setting, also when it changes, while the user chose nothing", () => {
    system = systemDark(true);
    render(<ThemeToggle />);
    expect(mode()).toBe('dark');
    expect(toggle()).toHaveAttribute('aria-pressed', 'true');
    system.set(false);
    expect(mode()).toBe('light');
    expect(toggle()).toHaveAttribute('aria-pressed', 'false');
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBeNull();
  });

  it('switches on a click and keeps the choice, whatever the system says next', async () => {
    system = systemDark(false);
    render(<ThemeToggle />);
    await userEvent.setup().click(toggle());
    expect(mode()).toBe('dark');
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark');
    system.set(false);
    expect(mode()).toBe('dark');
  });

  it('starts from a stored choice, and ignores a stored value that is no mode', () => {
    system = systemDark(false);
    localStorage.setItem(THEME_STORAGE_KEY, 'dark');
    const first = render(<ThemeToggle />);
    expect(mode()).toBe('dark');
    first.unmount();
    localStorage.setItem(THEME_STORAGE_KEY, 'purple');
    render(<ThemeToggle />);
    expect(mode()).toBe('light');
  });

  it('still switches, for this page, when the browser refuses storage', async () => {
    system = systemDark(false);
    const restore = refuseStorage();
    try {
      render(<ThemeToggle />);
      expect(mode()).toBe('light');
      await userEvent.setup().click(toggle());
      expect(mode()).toBe('dark');
    } finally {
      restore();
    }
  });

  it("takes another tab's choice", () => {
    system = systemDark(false);
    render(<ThemeToggle />);
    localStorage.setItem(THEME_STORAGE_KEY, 'dark');
    act(() => {
      window.dispatchEvent(new StorageEvent('storage', { key: THEME_STORAGE_KEY }));
    });
    expect(mode()).toBe('dark');
  });
});
