import { useCallback, useEffect, useState } from 'react';
import { withStorage } from '../common/browserStorage';

/** Bootstrap 5.3 colour modes, set as `data-bs-theme` on `<html>`. */
export type ColorMode = 'light' | 'dark';

/**
 * Where the user's choice is kept: its own `localStorage` key, not redux-persist's root (a theme
 * must survive a build whose persisted state is discarded, and be read before React loads).
 * `index.html` applies it before the first paint with an inline script that reads this key.
 */
export const THEME_STORAGE_KEY = 'taco:theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

function isColorMode(value: unknown): value is ColorMode {
  return value === 'light' || value === 'dark';
}

/** The mode the user chose, or `null` to follow the system. */
export function storedColorMode(): ColorMode | null {
  const value = withStorage((storage) => storage.getItem(THEME_STORAGE_KEY), null);
  return isColorMode(value) ? value : null;
}

export function systemColorMode(): ColorMode {
  return window.matchMedia(DARK_QUERY).matches ? 'dark' : 'light';
}

export function applyColorMode(mode: ColorMode): void {
  document.documentElement.setAttribute('data-bs-theme', mode);
}

/**
 * The colour mode in force: the stored choice, else the system's (followed live while nothing is
 * stored). `toggle` switches and remembers the choice.
 */
export function useColorMode(): { mode: ColorMode; toggle: () => void } {
  const [chosen, setChosen] = useState<ColorMode | null>(storedColorMode);
  const [system, setSystem] = useState<ColorMode>(systemColorMode);
  const mode = chosen ?? system;

  useEffect(() => {
    const query = window.matchMedia(DARK_QUERY);
    const onChange = () => setSystem(query.matches ? 'dark' : 'light');
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);

  // Another tab's choice applies here too.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === THEME_STORAGE_KEY) setChosen(storedColorMode());
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  useEffect(() => applyColorMode(mode), [mode]);

  const toggle = useCallback(() => {
    const next: ColorMode = mode === 'dark' ? 'light' : 'dark';
    withStorage((storage) => storage.setItem(THEME_STORAGE_KEY, next), undefined);
    setChosen(next);
  }, [mode]);

  return { mode, toggle };
}
