import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Toast } from '../../components/ui';
import { noticeDismissed, selectNotices } from '../notices/noticesSlice';

/** How long a server notice stays. */
const NOTICE_DELAY_MS = 5000;

/** Brief, non-blocking notices from the server's error frames. */
export function NoticeToasts() {
  const dispatch = useAppDispatch();
  const notices = useAppSelector(selectNotices);
  return (
    <div className="toast-container position-fixed top-0 end-0 p-3 notice-toasts">
      {notices.map((notice) => {
        const dismiss = () => dispatch(noticeDismissed({ id: notice.id }));
        return (
          <Toast key={notice.id} className="bg-warning" delay={NOTICE_DELAY_MS} onClose={dismiss}>
            <div className="toast-header">
              <strong className="me-auto">Taco Chat</strong>
              <button type="button" className="btn-close" aria-label="Dismiss" onClick={dismiss} />
            </div>
            <div className="toast-body">{notice.text}</div>
          </Toast>
        );
      })}
    </div>
  );
}
