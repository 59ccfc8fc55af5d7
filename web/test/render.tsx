import { render, type RenderResult } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { Provider } from 'react-redux';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { App } from '../src/app/App';
import { type AppStore, makeStore, type RootState } from '../src/app/store';
import type { SocketDeps } from '../src/socket/socketDeps';
import { fakeSocketDeps } from './fakeSocket';
import { memoryStorage } from './memoryStorage';

/** Shows the current path, so tests can assert navigation. */
function LocationProbe() {
  const location = useLocation();
  return (
    <div data-testid="location" data-hash={location.hash}>
      {location.pathname}
    </div>
  );
}

interface RenderOptions {
  path?: string;
  preloadedState?: Partial<RootState>;
  socket?: Partial<SocketDeps>;
  ui?: ReactElement;
  /** Set when the test uses Jest's fake timers. */
  fakeTimers?: boolean;
}

export interface RenderedApp extends RenderResult {
  store: AppStore;
  user: UserEvent;
  fake: ReturnType<typeof fakeSocketDeps>;
}

/** Renders the real app (or `ui`) with a real store at `path`. */
export function renderApp({
  path = '/',
  preloadedState,
  socket,
  ui,
  fakeTimers = false,
}: RenderOptions = {}): RenderedApp {
  const fake = fakeSocketDeps(socket);
  const store = makeStore(preloadedState, { socket: fake.deps, storage: memoryStorage().storage });
  const user = userEvent.setup(
    fakeTimers ? { advanceTimers: (ms) => jest.advanceTimersByTime(ms) } : {},
  );
  const result = render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        {ui ?? <App />}
        <Routes>
          <Route path="*" element={<LocationProbe />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
  return { store, user, fake, ...result };
}
