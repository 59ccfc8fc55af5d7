/** A participant's state: a green or grey dot, or an animated ellipsis while typing. */
export function PresenceDot({ active, typing }: { active: boolean; typing: boolean }) {
  if (typing) {
    return (
      <span className="typing-dots typing-dots-small" role="img" aria-label="typing">
        <span />
        <span />
        <span />
      </span>
    );
  }
  return (
    <span
      className={`presence-dot ${active ? 'presence-dot-active' : 'presence-dot-inactive'}`}
      role="img"
      aria-label={active ? 'active' : 'inactive'}
    />
  );
}
