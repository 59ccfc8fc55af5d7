import { Component, type ReactNode } from 'react';

interface Props {
  /** The page's address: when it changes, a failed page is tried again. */
  path: string;
  children: ReactNode;
}

interface State {
  failed: boolean;
}

/**
 * What the page area shows instead of a blank screen when a page fails: its code could not be
 * loaded (a dropped connection, or a deploy that replaced the files it asked for) or it threw
 * while rendering. The header stays, and a reload fetches the page afresh; going to another page
 * tries again.
 */
export class PageErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: unknown): void {
    console.error('Taco Chat: a page failed to show', error);
  }

  override componentDidUpdate(previous: Props): void {
    if (this.state.failed && previous.path !== this.props.path) this.setState({ failed: false });
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="page-center">
        <div className="card page-card shadow-sm" role="alert">
          <div className="card-body p-4 p-md-5 text-center">
            <h1 className="h3 mb-3">This page could not be shown</h1>
            <p className="text-body-secondary">
              Check your connection, then reload the page. Your rooms are kept.
            </p>
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => window.location.reload()}
            >
              Reload page
            </button>
          </div>
        </div>
      </div>
    );
  }
}
