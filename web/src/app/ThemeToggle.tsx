import { useColorMode } from './theme';

const MOON = 'M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8';
const SUN =
  'M12 7a5 5 0 1 1 0 10 5 5 0 0 1 0-10M12 1v2m0 18v2M4.2 4.2l1.4 1.4m12.8 12.8 1.4 1.4M1 12h2m18 0h2M4.2 19.8l1.4-1.4M18.4 5.6l1.4-1.4';

/** The header's dark-mode switch: a toggle button, pressed while the dark mode is on. */
export function ThemeToggle() {
  const { mode, toggle } = useColorMode();
  const dark = mode === 'dark';
  return (
    <button
      type="button"
      className="theme-toggle"
      aria-pressed={dark}
      title="Dark mode"
      onClick={toggle}
    >
      <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path
          d={dark ? MOON : SUN}
          fill={dark ? 'currentColor' : 'none'}
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      <span className="visually-hidden">Dark mode</span>
    </button>
  );
}
