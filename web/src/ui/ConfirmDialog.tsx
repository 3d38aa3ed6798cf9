import type { ReactNode } from 'react';
import { Dialog } from './Dialog';

/**
 * Asks before something that cannot be taken back: what happens is said
 * in children; the change runs only on the confirm button, and its error
 * stays in the dialog.
 */
export function ConfirmDialog({ title, confirm, busy, error, blocked, onConfirm, onClose, children }: {
  title: string;
  /** The confirm button's text, naming the action ("Delete credential"). */
  confirm: string;
  busy?: boolean;
  error?: Error | null;
  /** Set when the action cannot be done now; the confirm button is left out. */
  blocked?: boolean;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      <div className="dialog-body">
        {children}
        {error && <p className="error" role="alert">{error.message}</p>}
      </div>
      <footer className="dialog-foot">
        <button type="button" onClick={onClose}>{blocked ? 'Close' : 'Cancel'}</button>
        {!blocked && <button type="button" className="danger" disabled={busy} onClick={onConfirm}>{confirm}</button>}
      </footer>
    </Dialog>
  );
}
