import type { ReactNode } from 'react';

interface MenuItemProps {
  /** `menuitemradio` items say whether they are the chosen one. */
  checked?: boolean;
  disabled?: boolean;
  onSelect: () => void;
  children: ReactNode;
}

/** An entry of a `MenuButton`'s menu: a `menuitem`, or a `menuitemradio` when `checked` is set. */
export function MenuItem({ checked, disabled, onSelect, children }: MenuItemProps) {
  return (
    <button
      type="button"
      role={checked === undefined ? 'menuitem' : 'menuitemradio'}
      aria-checked={checked}
      className={`dropdown-item ${checked ? 'active' : ''}`}
      disabled={disabled}
      onClick={onSelect}
    >
      {children}
    </button>
  );
}
