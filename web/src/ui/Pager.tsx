/** Previous / Next over pages the API hands out with continue tokens. */
export function Pager({ label, page, hasPrevious, hasNext, busy, onPrevious, onNext }: {
  label: string;
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  busy?: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" onClick={onPrevious} disabled={!hasPrevious || busy}>Previous</button>
      <span aria-live="polite">Page {page}</span>
      <button type="button" onClick={onNext} disabled={!hasNext || busy}>Next</button>
    </nav>
  );
}
