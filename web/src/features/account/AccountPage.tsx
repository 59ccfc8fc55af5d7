import { useEffect } from 'react';
import { PRODUCT_NAME } from '../../common/brand';
import { BadgeIcon } from '../../components/BadgeIcon';

/** The account page: a placeholder, since Taco Chat has no accounts. */
export function AccountPage() {
  useEffect(() => {
    document.title = `My Account · ${PRODUCT_NAME}`;
  }, []);
  return (
    <div className="page-center">
      <div className="card page-card shadow-sm">
        <div className="card-body p-4 p-md-5 text-center">
          <BadgeIcon name="user" />
          <h1 className="h3 mb-3">My Account</h1>
          <p className="text-body-secondary mb-0">
            {PRODUCT_NAME} needs no account: pick a name when you join a room.
          </p>
        </div>
      </div>
    </div>
  );
}
