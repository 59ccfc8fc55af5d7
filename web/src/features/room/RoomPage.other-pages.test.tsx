import { screen } from '@testing-library/react';
import { renderApp } from '../../../test/render';
import { server } from '../../../test/server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('Other pages', () => {
  it('/a shows the My Account placeholder', () => {
    renderApp({ path: '/a' });
    expect(screen.getByRole('heading', { name: 'My Account' })).toBeInTheDocument();
  });

  it('an invalid room address says so', () => {
    renderApp({ path: '/r/a%20b' });
    expect(screen.getByRole('heading', { name: 'Invalid room name' })).toBeInTheDocument();
  });
});
