import { useState } from 'react';
import { Pager } from '../ui/Pager';
import { Empty, ErrorState, Loading } from '../ui/states';
import { AuditFilterForm } from './AuditFilterForm';
import { AuditTable } from './AuditTable';
import { auditQuery, noFilters, type AuditFilters } from './filters';
import { useAuditPage } from './queries';

/** The audit log: every change made through the API, who made it and with which request ID. */
export function AuditPage() {
  const [filters, setFilters] = useState<AuditFilters>(noFilters);
  // The before= value of each page shown so far; the last is this page's.
  const [cursors, setCursors] = useState<string[]>(['']);
  const q = useAuditPage(auditQuery(filters, cursors[cursors.length - 1]));
  const apply = (f: AuditFilters) => { setFilters(f); setCursors(['']); };
  const next = q.data?.next ?? '';
  return (
    <>
      <div className="page-head"><h1>Audit log</h1></div>
      <p className="muted">Every change made through the API, newest first, whether it succeeded or not. Request contents are never recorded; the request ID matches the server's log.</p>
      <AuditFilterForm value={filters} onApply={apply} />
      <section className="panel" aria-labelledby="audit-events-title">
        <h2 id="audit-events-title">Events</h2>
        {q.isPending ? <Loading what="audit events" />
          : q.isError ? <ErrorState title="The audit log could not be loaded." error={q.error} onRetry={() => q.refetch()} />
          : q.data.items.length === 0 ? <Empty>{cursors.length > 1 ? 'No older events.' : 'No events match these filters.'}</Empty>
          : <AuditTable items={q.data.items} />}
        <Pager label="Audit log pages" page={cursors.length} hasPrevious={cursors.length > 1} hasNext={Boolean(next)}
          busy={q.isFetching} onPrevious={() => setCursors(cursors.slice(0, -1))} onNext={() => setCursors([...cursors, next])} />
      </section>
    </>
  );
}
