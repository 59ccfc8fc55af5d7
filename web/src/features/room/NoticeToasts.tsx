import Toast from 'react-bootstrap/Toast';
import ToastContainer from 'react-bootstrap/ToastContainer';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { noticeDismissed, selectNotices } from '../notices/noticesSlice';

/** How long a server notice stays. */
const NOTICE_DELAY_MS = 5000;

/** Brief, non-blocking notices from the server's error frames. */
export function NoticeToasts() {
  const dispatch = useAppDispatch();
  const notices = useAppSelector(selectNotices);
  return (
    <ToastContainer position="top-end" className="p-3 notice-toasts" containerPosition="fixed">
      {notices.map((notice) => (
        <Toast
          key={notice.id}
          bg="warning"
          autohide
          delay={NOTICE_DELAY_MS}
          onClose={() => dispatch(noticeDismissed({ id: notice.id }))}
        >
          <Toast.Header closeLabel="Dismiss">
            <strong className="me-auto">Taco Chat</strong>
          </Toast.Header>
          <Toast.Body>{notice.text}</Toast.Body>
        </Toast>
      ))}
    </ToastContainer>
  );
}
