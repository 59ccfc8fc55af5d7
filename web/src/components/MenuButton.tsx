import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from 'react';

interface MenuButtonProps {
  /** The button's accessible name, which also names the menu. */
  label: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** What the button shows. */
  face: ReactNode;
  /** `MenuItem`s. */
  children: ReactNode;
}

const ITEMS = '[role^="menuitem"]:not(:disabled)';

/**
 * The ARIA menu button pattern on Bootstrap's dropdown classes: the button opens a `role=menu`
 * below it, aligned to its end, with focus on the first item; arrow keys, Home and End move
 * between the items, Escape closes and hands focus back to the button, and so does choosing an
 * item; Tab or a click elsewhere closes it.
 */
export function MenuButton({ label, open, onOpenChange, face, children }: MenuButtonProps) {
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>(ITEMS)?.focus();
    const outside = (event: Event) => {
      if (event.target instanceof Node && !root.current?.contains(event.target)) {
        onOpenChange(false);
      }
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open, onOpenChange]);

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>(ITEMS) ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const to = (index: number) => {
      event.preventDefault();
      items[(index + items.length) % items.length]?.focus();
    };
    if (event.key === 'ArrowDown') to(at + 1);
    else if (event.key === 'ArrowUp') to(at - 1);
    else if (event.key === 'Home') to(0);
    else if (event.key === 'End') to(items.length - 1);
    else if (event.key === 'Escape') {
      event.preventDefault();
      onOpenChange(false);
      button.current?.focus();
    } else if (event.key === 'Tab') onOpenChange(false);
  };

  return (
    <div ref={root} className="dropdown header-dropdown">
      <button
        ref={button}
        id={id}
        type="button"
        className="btn btn-outline-secondary btn-sm header-icon-button dropdown-toggle"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => onOpenChange(!open)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            onOpenChange(true);
          }
        }}
      >
        {face}
      </button>
      {open ? (
        <div
          ref={menu}
          role="menu"
          aria-labelledby={id}
          className="dropdown-menu dropdown-menu-end show"
          data-bs-popper="static"
          onKeyDown={onMenuKey}
          onClick={(event) => {
            // Choosing an item closes the menu (its handler does) and focus goes back home.
            if (event.target instanceof Element && event.target.closest(ITEMS) !== null) {
              button.current?.focus();
            }
          }}
        >
          {children}
        </div>
      ) : null}
    </div>
  );
}
