import './styles/bootstrap.scss';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { BrowserRouter } from 'react-router-dom';
import { persistStore } from 'redux-persist';
import { PersistGate } from 'redux-persist/integration/react';
import { App } from './app/App';
import { flushWhenPageHides } from './features/roomAuth/persistence';
import { shareCredentialsAcrossTabs } from './features/roomAuth/sharedCredentials';
import { makeStore } from './app/store';
import { requestNotificationPermission } from './socket/notifications';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element');

const store = makeStore();
const persistor = persistStore(store);
flushWhenPageHides(persistor, { window, document });
shareCredentialsAcrossTabs(store, window);
requestNotificationPermission();

createRoot(container).render(
  <StrictMode>
    <Provider store={store}>
      <PersistGate loading={null} persistor={persistor}>
        <BrowserRouter>
          <App />
        </BrowserRouter>
      </PersistGate>
    </Provider>
  </StrictMode>,
);
