import { useEffect } from 'react';

/**
 * Keeps `--app-height` equal to the visual viewport's height, so the message input stays above
 * an on-screen keyboard even where `interactive-widget=resizes-content` is not supported.
 */
export function useViewportHeight(): void {
  useEffect(() => {
    const viewport = window.visualViewport;
    if (!viewport) return;
    const root = document.documentElement;
    const update = () => root.style.setProperty('--app-height', `${viewport.height}px`);
    update();
    viewport.addEventListener('resize', update);
    return () => {
      viewport.removeEventListener('resize', update);
      root.style.removeProperty('--app-height');
    };
  }, []);
}
