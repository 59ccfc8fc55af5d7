import { type ReactNode, useSyncExternalStore } from 'react';
import { Dialog } from './Dialog';

/** Bootstrap's `md` breakpoint: from there on the drawer is a sidebar. */
const WIDE = '(min-width: 768px)';

function subscribe(onChange: () => void) {
  if (typeof window.matchMedia !== 'function') return () => {};
  const query = window.matchMedia(WIDE);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** Narrower than `md`; a browser without `matchMedia` counts as wide. */
function isNarrow() {
  return typeof window.matchMedia === 'function' && !window.matchMedia(WIDE).matches;
}

interface DrawerProps {
  show: boolean;
  onHide: () => void;
  /** The dialog's name on phones. */
  title: string;
  className?: string;
  children: ReactNode;
}

/**
 * Bootstrap's responsive offcanvas (`offcanvas-md`): a sidebar from `md` on; below it a drawer
 * from the start edge, opened by `show`, as a native modal dialog with a close button.
 */
export function Drawer({ show, onHide, title, className, children }: DrawerProps) {
  const narrow = useSyncExternalStore(subscribe, isNarrow, () => false);
  if (narrow && show) {
    return (
      <Dialog
        className={`offcanvas offcanvas-start show ${className ?? ''}`}
        labelledBy="drawer-title"
        onHide={onHide}
      >
        <div className="offcanvas-header">
          <h2 id="drawer-title" className="offcanvas-title h6">
            {title}
          </h2>
          <button type="button" className="btn-close" aria-label="Close" onClick={onHide} />
        </div>
        <div className="offcanvas-body p-0">{children}</div>
      </Dialog>
    );
  }
  return (
    <div className={`offcanvas-md offcanvas-start ${className ?? ''}`}>
      <div className="offcanvas-body p-0">{children}</div>
    </div>
  );
}
