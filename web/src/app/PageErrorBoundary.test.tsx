import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { AppLayout } from './AppLayout';

/** A page whose code could not be fetched, as `lazy` reports it: by throwing while rendering. */
function BrokenPage(): never {
  throw new TypeError('Failed to fetch dynamically imported module: /assets/RoomPage-old.js');
}

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route element={<AppLayout />}>
          <Route path="broken" element={<BrokenPage />} />
          <Route path="a" element={<p>A working page</p>} />
        </Route>
      </Routes>
    </MemoryRouter>,
  );
}

describe('a page that fails to show', () => {
  let consoleError: jest.SpyInstance;
  beforeEach(() => {
    consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => consoleError.mockRestore());

  it('keeps the header and offers a reload instead of a blank screen', () => {
    renderAt('/broken');
    expect(screen.getByRole('alert')).toHaveTextContent('This page could not be shown');
    expect(screen.getByRole('button', { name: 'Reload page' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'My Account' })).toBeInTheDocument();
    expect(consoleError).toHaveBeenCalledWith(
      'Taco Chat: a page failed to show',
      expect.any(TypeError),
    );
  });

  it('tries again when the user goes to another page', async () => {
    renderAt('/broken');
    expect(screen.getByRole('alert')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('link', { name: 'My Account' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByText('A working page')).toBeInTheDocument();
  });
});
