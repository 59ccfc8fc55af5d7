/** Decorative icons drawn inline, so they look the same with or without an emoji font. */
const PATHS = {
  chat: 'M4 5.5A2.5 2.5 0 0 1 6.5 3h11A2.5 2.5 0 0 1 20 5.5v8a2.5 2.5 0 0 1-2.5 2.5H10l-4.2 3.6c-.5.4-1.3.1-1.3-.6V16.9A2.5 2.5 0 0 1 4 14.5zM8 8.25a1.25 1.25 0 1 0 0 2.5 1.25 1.25 0 0 0 0-2.5m4 0a1.25 1.25 0 1 0 0 2.5 1.25 1.25 0 0 0 0-2.5m4 0a1.25 1.25 0 1 0 0 2.5 1.25 1.25 0 0 0 0-2.5',
  user: 'M12 3.5a4.25 4.25 0 1 1 0 8.5 4.25 4.25 0 0 1 0-8.5M4.5 19.2c0-3.1 3.4-5.2 7.5-5.2s7.5 2.1 7.5 5.2c0 .7-.5 1.3-1.2 1.3H5.7c-.7 0-1.2-.6-1.2-1.3',
} as const;

export type BadgeIconName = keyof typeof PATHS;

/** A round, tinted badge with an icon. */
export function BadgeIcon({ name, size = 'lg' }: { name: BadgeIconName; size?: 'lg' | 'md' }) {
  return (
    <span className={`badge-icon badge-icon-${size}`} aria-hidden="true">
      <svg viewBox="0 0 24 24" focusable="false">
        <path fill="currentColor" d={PATHS[name]} />
      </svg>
    </span>
  );
}
