import { WebRoute } from '@taco/protocol';
import { Link } from 'react-router-dom';

/** Any route the app does not know. */
export function NotFoundPage() {
  return (
    <div className="page-center">
      <div className="card page-card shadow-sm">
        <div className="card-body p-4 p-md-5 text-center">
          <h1 className="h3 mb-3">Page not found</h1>
          <p className="text-body-secondary">There is nothing at this address.</p>
          <Link className="btn btn-primary" to={WebRoute.create}>
            Create a room
          </Link>
        </div>
      </div>
    </div>
  );
}
