import { useEffect, useId, useRef, type ReactNode } from 'react';

/** A modal on the native <dialog>: focus trapped, Esc closes. */
export function Dialog({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} className={wide ? 'dialog wide' : 'dialog'} aria-labelledby={id}
      onCancel={(e) => { e.preventDefault(); onClose(); }}>
      <header className="dialog-head">
        <h2 id={id}>{title}</h2>
        <button type="button" className="icon" aria-label="Close" onClick={onClose}>×</button>
      </header>
      {children}
    </dialog>
  );
}
