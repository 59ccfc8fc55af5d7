import type { ReactNode } from 'react';

interface MenuItemProps {
  /** `menuitemradio` items say whether they are the chosen one. */
  checked?: boolean;
  disabled?: boolean;
  onSelect: () => void;
  children: ReactNode;
}

/**
 * An entry of a react-bootstrap dropdown menu, as a plain button: `Dropdown.Item` always sets
 * `aria-selected`, which menu items may not carry. The data attribute keeps the menu's arrow-key
 * navigation.
 */
export function MenuItem({ checked, disabled, onSelect, children }: MenuItemProps) {
  return (
    <button
      type="button"
      role={checked === undefined ? 'menuitem' : 'menuitemradio'}
      aria-checked={checked}
      className={`dropdown-item ${checked ? 'active' : ''}`}
      disabled={disabled}
      data-rr-ui-dropdown-item=""
      onClick={onSelect}
    >
      {children}
    </button>
  );
}
