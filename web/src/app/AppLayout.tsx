import { Suspense } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router-dom';
import { WebRoute } from '@taco/protocol';
import { PRODUCT_EMOJI, PRODUCT_NAME } from '../common/brand';
import { PageErrorBoundary } from './PageErrorBoundary';
import { ThemeToggle } from './ThemeToggle';
import { useViewportHeight } from './useViewportHeight';

const navLinkClass = ({ isActive }: { isActive: boolean }) =>
  isActive ? 'app-nav-link active' : 'app-nav-link';
// "New room" is the header's brand link again on a phone, where there is no room for both.
const newRoomClass = (state: { isActive: boolean }) => `${navLinkClass(state)} d-none d-sm-block`;

/** The header bar and the page below it. */
export function AppLayout() {
  useViewportHeight();
  const { pathname } = useLocation();
  return (
    <div className="app-shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to={WebRoute.create} className="app-brand">
          <span aria-hidden="true">{PRODUCT_EMOJI}</span> {PRODUCT_NAME}
        </Link>
        <nav aria-label="Main" className="app-nav">
          <NavLink to={WebRoute.create} end className={newRoomClass}>
            New room
          </NavLink>
          <NavLink to={WebRoute.account} className={navLinkClass}>
            My Account
          </NavLink>
          <ThemeToggle />
        </nav>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        <PageErrorBoundary path={pathname}>
          <Suspense fallback={null}>
            <Outlet />
          </Suspense>
        </PageErrorBoundary>
      </main>
    </div>
  );
}
