import Container from 'react-bootstrap/Container';
import Nav from 'react-bootstrap/Nav';
import Navbar from 'react-bootstrap/Navbar';
import { Link, NavLink, Outlet } from 'react-router-dom';
import { WebRoute } from '@taco/protocol';
import { PRODUCT_EMOJI, PRODUCT_NAME } from './brand';
import { useViewportHeight } from './useViewportHeight';

/** The header bar and the page below it. */
export function AppLayout() {
  useViewportHeight();
  return (
    <div className="app-shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Navbar as="header" className="app-header" variant="dark" expand={false}>
        <Container fluid>
          <Navbar.Brand as={Link} to={WebRoute.create} className="app-brand">
            <span aria-hidden="true">{PRODUCT_EMOJI}</span> {PRODUCT_NAME}
          </Navbar.Brand>
          <Nav as="nav" aria-label="Main" className="flex-row gap-3">
            <Nav.Link as={NavLink} to={WebRoute.create} end className="d-none d-sm-block">
              New room
            </Nav.Link>
            <Nav.Link as={NavLink} to={WebRoute.account}>
              My Account
            </Nav.Link>
          </Nav>
        </Container>
      </Navbar>
      <main id="main" className="app-main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
