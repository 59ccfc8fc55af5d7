import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  BrowserRouter,
  Link,
  MemoryRouter,
  NavLink,
  Outlet,
  Route,
  Routes,
  useLocation,
  useNavigate,
  useParams,
} from './router';

function Room() {
  const { room_id } = useParams();
  return <p>room {room_id}</p>;
}

function Where() {
  return <p data-testid="where">{useLocation().pathname}</p>;
}

function Layout() {
  return (
    <div>
      <nav>
        <NavLink to="/" end>
          Home
        </NavLink>
        <NavLink to="/r/teal-otter">Teal</NavLink>
        <Link to="/a">Account</Link>
      </nav>
      <Outlet />
    </div>
  );
}

function app(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route element={<Layout />}>
          <Route index element={<p>create</p>} />
          <Route path="a" element={<p>account</p>} />
          <Route path="r/:room_id" element={<Room />} />
          <Route path="*" element={<p>not found</p>} />
        </Route>
      </Routes>
      <Where />
    </MemoryRouter>,
  );
}

describe('router', () => {
  it.each([
    ['/', 'create'],
    ['/a', 'account'],
    ['/a/', 'account'],
    ['/r/teal-otter', 'room teal-otter'],
    ['/r/caf%C3%A9-owl', 'room café-owl'],
    ['/r/teal-otter/more', 'not found'],
    ['/nowhere', 'not found'],
  ])('renders the layout and the best route for %s', (path, text) => {
    app(path);
    expect(screen.getByText(text)).toBeInTheDocument();
    expect(screen.getByRole('navigation')).toBeInTheDocument();
  });

  it('marks the link of the current page, and `end` keeps "/" from matching below it', () => {
    app('/r/teal-otter');
    expect(screen.getByRole('link', { name: 'Teal' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('link', { name: 'Teal' })).toHaveClass('active');
    expect(screen.getByRole('link', { name: 'Home' })).not.toHaveAttribute('aria-current');
  });

  it('navigates in the page on a plain click, not on a modified one', async () => {
    const user = userEvent.setup();
    app('/');
    await user.click(screen.getByRole('link', { name: 'Teal' }));
    expect(screen.getByTestId('where')).toHaveTextContent('/r/teal-otter');
    expect(screen.getByText('room teal-otter')).toBeInTheDocument();
    await user.keyboard('{Control>}');
    await user.click(screen.getByRole('link', { name: 'Account' }));
    await user.keyboard('{/Control}');
    expect(screen.getByTestId('where')).toHaveTextContent('/r/teal-otter');
  });

  it('follows the address bar: pushState on navigate, popstate on back', async () => {
    window.history.replaceState(null, '', '/');
    function Go() {
      const navigate = useNavigate();
      return (
        <button type="button" onClick={() => navigate('/r/blue-fox')}>
          Go
        </button>
      );
    }
    render(
      <BrowserRouter>
        <Go />
        <Routes>
          <Route index element={<p>create</p>} />
          <Route path="r/:room_id" element={<Room />} />
        </Routes>
      </BrowserRouter>,
    );
    expect(screen.getByText('create')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Go' }));
    expect(window.location.pathname).toBe('/r/blue-fox');
    expect(screen.getByText('room blue-fox')).toBeInTheDocument();
    act(() => {
      window.history.replaceState(null, '', '/');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    expect(screen.getByText('create')).toBeInTheDocument();
  });
});
