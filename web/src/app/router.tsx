import {
  Children,
  createContext,
  isValidElement,
  type AnchorHTMLAttributes,
  type MouseEvent,
  type ReactElement,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
} from 'react';

/**
 * The client's router: the part of React Router's API the app uses (`BrowserRouter`,
 * `MemoryRouter`, `Routes`/`Route` with a layout route and `Outlet`, `Link`, `NavLink`,
 * `useNavigate`, `useParams`, `useLocation`), with the same names and meaning. React Router 7
 * would be 12 KB of the first load's 125 KB budget (brotli) for three routes; this is about one.
 * Paths are absolute (`/r/teal-otter`); patterns are static segments, `:param` and a final `*`.
 */

export interface Location {
  pathname: string;
  search: string;
  hash: string;
}

export interface NavigateOptions {
  replace?: boolean;
}

export type NavigateFunction = (to: string, options?: NavigateOptions) => void;

interface RouterState {
  location: Location;
  navigate: NavigateFunction;
}

const RouterContext = createContext<RouterState | null>(null);

interface MatchState {
  params: Readonly<Record<string, string>>;
  outlet: ReactNode;
}

const MatchContext = createContext<MatchState>({ params: {}, outlet: null });

function useRouter(): RouterState {
  const router = useContext(RouterContext);
  if (!router) throw new Error('Router hooks and links need a <BrowserRouter> or <MemoryRouter>');
  return router;
}

function parsePath(to: string): Location {
  const url = new URL(to, 'http://path.invalid');
  return { pathname: url.pathname, search: url.search, hash: url.hash };
}

function windowLocation(): Location {
  const { pathname, search, hash } = window.location;
  return { pathname, search, hash };
}

/** The router of the real page: the address bar and the history's back and forward. */
export function BrowserRouter({ children }: { children?: ReactNode }) {
  const [location, setLocation] = useState(windowLocation);
  useEffect(() => {
    const onPopState = () => setLocation(windowLocation());
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, []);
  const navigate = useCallback<NavigateFunction>((to, options) => {
    if (options?.replace) window.history.replaceState(null, '', to);
    else window.history.pushState(null, '', to);
    setLocation(windowLocation());
  }, []);
  const state = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <RouterContext.Provider value={state}>{children}</RouterContext.Provider>;
}

/** A router that keeps its history in memory: for tests. */
export function MemoryRouter({
  initialEntries = ['/'],
  children,
}: {
  initialEntries?: string[];
  children?: ReactNode;
}) {
  const [location, setLocation] = useState(() => parsePath(initialEntries.at(-1) ?? '/'));
  const navigate = useCallback<NavigateFunction>((to) => setLocation(parsePath(to)), []);
  const state = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <RouterContext.Provider value={state}>{children}</RouterContext.Provider>;
}

export interface RouteProps {
  path?: string;
  index?: boolean;
  element?: ReactNode;
  children?: ReactNode;
}

/** Declares a route inside `<Routes>`; renders nothing by itself. */
export function Route(_props: RouteProps): null {
  return null;
}

const segments = (path: string) => path.split('/').filter(Boolean);

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Matches `pattern`'s segments against the start of `parts`: the params, and how many parts they
 * took (`Infinity` after a `*`), or null.
 */
function matchSegments(
  pattern: string,
  parts: readonly string[],
): { params: Record<string, string>; used: number } | null {
  const params: Record<string, string> = {};
  const wanted = segments(pattern);
  for (const [i, segment] of wanted.entries()) {
    if (segment === '*') {
      params['*'] = parts.slice(i).map(decode).join('/');
      return { params, used: Infinity };
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (segment.startsWith(':')) params[segment.slice(1)] = decode(part);
    else if (segment !== part) return null;
  }
  return { params, used: wanted.length };
}

/** How specific a pattern is, as React Router ranks them: static > `:param` > `*`. */
function score(pattern: string): number {
  return segments(pattern).reduce(
    (total, segment) => total + (segment === '*' ? -2 : segment.startsWith(':') ? 3 : 10),
    0,
  );
}

function routesOf(children: ReactNode): RouteProps[] {
  return Children.toArray(children)
    .filter((child): child is ReactElement<RouteProps> => isValidElement(child))
    .map((child) => child.props);
}

/** The element for `parts` among `routes` (a layout route renders its match as `<Outlet>`). */
function render(
  routes: RouteProps[],
  parts: readonly string[],
  params: Record<string, string>,
): ReactNode | undefined {
  const candidates = routes
    .map((route) => ({ route, rank: route.path === undefined ? 0 : score(route.path) }))
    .sort((a, b) => b.rank - a.rank);
  for (const { route } of candidates) {
    if (route.index) {
      if (parts.length === 0) return wrap(route.element, params, null);
      continue;
    }
    if (route.path === undefined) {
      // A layout route: it matches when one of its children does.
      const outlet = render(routesOf(route.children), parts, params);
      if (outlet !== undefined) return wrap(route.element ?? <Outlet />, params, outlet);
      continue;
    }
    const match = matchSegments(route.path, parts);
    if (!match) continue;
    const merged = { ...params, ...match.params };
    const rest = match.used === Infinity ? [] : parts.slice(match.used);
    const children = routesOf(route.children);
    if (rest.length === 0) {
      const index = children.length > 0 ? render(children, [], merged) : null;
      return wrap(route.element ?? <Outlet />, merged, index ?? null);
    }
    const outlet = children.length > 0 ? render(children, rest, merged) : undefined;
    if (outlet !== undefined) return wrap(route.element ?? <Outlet />, merged, outlet);
  }
  return undefined;
}

function wrap(element: ReactNode, params: Record<string, string>, outlet: ReactNode): ReactNode {
  return <MatchContext.Provider value={{ params, outlet }}>{element}</MatchContext.Provider>;
}

/** Renders the best matching `<Route>` for the current location (nothing when none matches). */
export function Routes({ children }: { children?: ReactNode }) {
  const { pathname } = useRouter().location;
  const parent = useContext(MatchContext);
  return render(routesOf(children), segments(pathname), { ...parent.params }) ?? null;
}

/** Where a layout route shows its matched child. */
export function Outlet() {
  return useContext(MatchContext).outlet;
}

export function useLocation(): Location {
  return useRouter().location;
}

export function useNavigate(): NavigateFunction {
  return useRouter().navigate;
}

export function useParams(): Readonly<Record<string, string | undefined>> {
  return useContext(MatchContext).params;
}

type AnchorProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'className'>;

export interface LinkProps extends AnchorProps {
  to: string;
  replace?: boolean;
  className?: string;
}

/** A plain left click navigates in the page; others (new tab, modifier keys) go to the browser. */
function isPlainClick(event: MouseEvent<HTMLAnchorElement>, target?: string): boolean {
  return (
    !event.defaultPrevented &&
    event.button === 0 &&
    (!target || target === '_self') &&
    !(event.metaKey || event.altKey || event.ctrlKey || event.shiftKey)
  );
}

export function Link({ to, replace, onClick, target, ...rest }: LinkProps) {
  const { navigate } = useRouter();
  return (
    <a
      {...rest}
      href={to}
      target={target}
      onClick={(event) => {
        onClick?.(event);
        if (!isPlainClick(event, target)) return;
        event.preventDefault();
        navigate(to, { replace });
      }}
    />
  );
}

export interface NavLinkProps extends Omit<LinkProps, 'className'> {
  /** Active only on this exact path, not on the paths below it. */
  end?: boolean;
  className?: string | ((state: { isActive: boolean }) => string);
}

/** A link that knows when it points at the current page: `aria-current="page"` and `active`. */
export function NavLink({ to, end, className, ...rest }: NavLinkProps) {
  const { pathname } = useRouter().location;
  const target = to.length > 1 ? to.replace(/\/+$/, '') : to;
  const isActive =
    pathname === target || (!end && (target === '/' ? false : pathname.startsWith(`${target}/`)));
  const classes =
    typeof className === 'function'
      ? className({ isActive })
      : [className, isActive ? 'active' : ''].filter(Boolean).join(' ');
  return (
    <Link
      {...rest}
      to={to}
      className={classes || undefined}
      aria-current={isActive ? 'page' : undefined}
    />
  );
}
