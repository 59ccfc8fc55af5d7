import { type ButtonHTMLAttributes, type ReactNode, useEffect, useRef } from 'react';

/** Joins the class names that are set. */
export function classes(...names: (string | false | null | undefined)[]): string {
  return names.filter(Boolean).join(' ');
}

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** Bootstrap's button variant: `primary`, `outline-secondary`, `danger`... */
  variant?: string;
  size?: 'sm' | 'lg';
}

/** A Bootstrap button; `type="button"` unless told otherwise, so it never submits by accident. */
export function Button({ variant, size, className, type = 'button', ...rest }: ButtonProps) {
  return (
    <button
      type={type}
      className={classes(
        'btn',
        variant === undefined ? 'btn-primary' : `btn-${variant}`,
        size && `btn-${size}`,
        className,
      )}
      {...rest}
    />
  );
}

/** Bootstrap's border spinner, hidden from assistive technology (the text next to it speaks). */
export function Spinner({
  size,
  variant,
  className,
}: {
  size?: 'sm';
  variant?: string;
  className?: string;
}) {
  return (
    <span
      className={classes(
        'spinner-border',
        size && 'spinner-border-sm',
        variant && `text-${variant}`,
        className,
      )}
      aria-hidden="true"
    />
  );
}

interface ToastProps {
  /** Called when the toast's time is up or its close button is pressed. */
  onClose: () => void;
  /** Milliseconds until `onClose`. */
  delay: number;
  className?: string;
  children: ReactNode;
}

/** A Bootstrap toast that announces itself and asks to go after `delay`. */
export function Toast({ onClose, delay, className, children }: ToastProps) {
  // The latest callback, without restarting the timer when the parent renders again.
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });
  useEffect(() => {
    const timer = setTimeout(() => close.current(), delay);
    return () => clearTimeout(timer);
  }, [delay]);
  return (
    <div
      className={classes('toast show', className)}
      role="alert"
      aria-live="assertive"
      aria-atomic="true"
    >
      {children}
    </div>
  );
}

interface AlertProps {
  variant: string;
  className?: string;
  /** When set, the alert has a close button that calls it. */
  onClose?: () => void;
  children: ReactNode;
}

/** A Bootstrap alert, optionally dismissible. */
export function Alert({ variant, className, onClose, children }: AlertProps) {
  return (
    <div
      role="alert"
      className={classes('alert', `alert-${variant}`, onClose && 'alert-dismissible', className)}
    >
      {children}
      {onClose ? (
        <button type="button" className="btn-close" aria-label="Close alert" onClick={onClose} />
      ) : null}
    </div>
  );
}
