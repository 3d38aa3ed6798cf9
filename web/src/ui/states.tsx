import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }) {
  return <p className="state" role="status" aria-live="polite">Loading {what}…</p>;
}

export function ErrorState({ title, error, onRetry }: { title: string; error: unknown; onRetry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="state error-state" role="alert">
      <p><strong>{title}</strong></p>
      <p>{message}</p>
      {onRetry && <button type="button" onClick={onRetry}>Retry</button>}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}
