import { type ReactNode, type SyntheticEvent, useLayoutEffect, useRef } from 'react';
import { classes } from './ui';
import './dialog.css';

interface DialogProps {
  /** Id of the element that names the dialog. */
  labelledBy?: string;
  label?: string;
  /**
   * Called on Escape, on a click on the backdrop and on a close button. Without it the dialog
   * cannot be dismissed: it stays until its owner stops rendering it.
   */
  onHide?: () => void;
  className?: string;
  children: ReactNode;
}

/**
 * A native modal `<dialog>` (the browser traps focus in it and makes the page behind it inert)
 * with Bootstrap's classes. It opens when rendered and closes when unrendered, handing focus back
 * to where it was (or to the page's `data-focus-fallback` element when that cannot take it).
 * `data-autofocus` marks the element that takes focus on opening.
 */
export function Dialog({ labelledBy, label, onHide, className, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    const previous = document.activeElement;
    openModal(dialog);
    return () => {
      if (typeof dialog.close === 'function') dialog.close();
      else dialog.removeAttribute('open');
      returnFocus(previous);
    };
  }, []);

  const dismiss = (event: SyntheticEvent) => {
    // The owner decides: the dialog stays open until it is no longer rendered.
    event.preventDefault();
    onHide?.();
  };

  return (
    <dialog
      ref={ref}
      tabIndex={-1}
      className={classes('app-dialog', className)}
      aria-labelledby={labelledBy}
      aria-label={label}
      onCancel={dismiss}
      onKeyDown={(event) => {
        // Refused before the browser starts closing: Chromium lets a second refused `cancel`
        // through (the close below opens it again, but only after a moment without it).
        if (event.key === 'Escape' && onHide === undefined) event.preventDefault();
      }}
      onClose={(event) => {
        // A browser may close a dialog whose Escape was refused twice; a dialog that is still
        // rendered opens again.
        if (event.currentTarget.isConnected) openModal(event.currentTarget);
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) onHide?.();
      }}
    >
      {children}
    </dialog>
  );
}

/**
 * Hands focus back to `previous`, or, when the control that opened the dialog can no longer take
 * it (gone, or disabled by what the dialog did, as Clear Room is once the room is empty), to the
 * page's element marked `data-focus-fallback` (the message input).
 */
function returnFocus(previous: Element | null) {
  if (previous instanceof HTMLElement && previous.isConnected) previous.focus();
  // Checked once the update that closed the dialog is done: it may have disabled that control.
  setTimeout(() => {
    const focused = document.activeElement;
    if (focused === null || focused === document.body || focused.matches(':disabled')) {
      document.querySelector<HTMLElement>('[data-focus-fallback]')?.focus();
    }
  }, 0);
}

function openModal(dialog: HTMLDialogElement) {
  if (dialog.open) return;
  if (typeof dialog.showModal === 'function') dialog.showModal();
  else dialog.setAttribute('open', '');
  // The marked field, else the dialog itself (not its close button, which would show a ring).
  (dialog.querySelector<HTMLElement>('[data-autofocus]') ?? dialog).focus();
}

interface ModalProps extends Omit<DialogProps, 'label' | 'className'> {
  labelledBy: string;
}

/** A centred Bootstrap modal on a native dialog: `.modal-header`, `.modal-body`... inside. */
export function Modal({ children, ...props }: ModalProps) {
  return (
    <Dialog className="modal" {...props}>
      <div className="modal-dialog modal-dialog-centered">
        <div className="modal-content">{children}</div>
      </div>
    </Dialog>
  );
}

/** A modal's header: its title and, when it can be dismissed, a close button. */
export function ModalHeader({
  id,
  onHide,
  children,
}: {
  id: string;
  onHide?: () => void;
  children: ReactNode;
}) {
  return (
    <div className="modal-header">
      <h2 id={id} className="modal-title h5">
        {children}
      </h2>
      {onHide ? (
        <button type="button" className="btn-close" aria-label="Close" onClick={onHide} />
      ) : null}
    </div>
  );
}
