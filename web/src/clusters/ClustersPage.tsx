import { useCallback, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { Cluster } from '../api/client';
import { Pager } from '../ui/Pager';
import { Empty, ErrorState, Loading } from '../ui/states';
import { useTeams, useTeamsToMakeIn } from '../teams/queries';
import { ClusterWizard } from '../wizard/ClusterWizard';
import { ClusterCard } from './ClusterCard';
import { ClusterFilterBar, hasFilters } from './ClusterFilterBar';
import { DisconnectDialog, TeardownDialog } from './DisconnectDialog';
import { GetStarted } from './GetStarted';
import { CLUSTERS_PAGE_SIZE, type ClusterFilters, useClusterPage } from './queries';

/** Beyond this many cards, health scores are on each cluster's page only. */
const HEALTH_BADGES_UP_TO = 50;

/** "3 clusters", or which of a longer list this page holds. */
function countText(n: number, page: number, more: boolean): string {
  if (page === 1 && !more) return `${n} ${n === 1 ? 'cluster' : 'clusters'}`;
  const first = (page - 1) * CLUSTERS_PAGE_SIZE + 1;
  return `clusters ${first}–${first + n - 1}${more ? ' (more on the next page)' : ''}`;
}

export function ClustersPage() {
  // The team filter is in the address (/clusters?team=payments), so a team's clusters can be linked to.
  const [params, setParams] = useSearchParams();
  const team = params.get('team') ?? '';
  const [rest, setRest] = useState<Omit<ClusterFilters, 'team'>>({});
  const filters: ClusterFilters = { ...rest, team: team || undefined };
  // The continue token of each page shown so far; the last is this page's.
  // They belong to one team filter: another (the address changed) starts at page 1.
  const [paging, setPaging] = useState({ team, cursors: [''] });
  const cursors = paging.team === team ? paging.cursors : [''];
  const setCursors = (f: (c: string[]) => string[]) => setPaging((p) => ({ team, cursors: f(p.team === team ? p.cursors : ['']) }));
  const q = useClusterPage({ ...filters, continue: cursors[cursors.length - 1] });
  const onFilters = useCallback(({ team: t, ...f }: ClusterFilters) => {
    setRest(f);
    setPaging({ team: t ?? '', cursors: [''] });
    setParams((p) => { if (t) p.set('team', t); else p.delete('team'); return p; }, { replace: true });
  }, [setParams]);
  const { mayMake } = useTeamsToMakeIn();
  const teams = useTeams().data?.items.map((t) => t.name) ?? [];
  const [wizard, setWizard] = useState<'' | 'new' | 'host'>('');
  const [disconnecting, setDisconnecting] = useState<Cluster | null>(null);
  const [tearingDown, setTearingDown] = useState<Cluster | null>(null);
  const onDisconnect = useCallback((c: Cluster) => setDisconnecting(c), []);
  const onTeardown = useCallback((c: Cluster) => setTearingDown(c), []);

  let body;
  if (q.isPending) body = <Loading what="clusters" />;
  else if (q.isError) {
    body = <ErrorState title="The clusters could not be loaded." error={q.error} onRetry={() => { setCursors(() => ['']); q.refetch(); }} />;
  } else {
    const items = q.data.items;
    const filtered = hasFilters(filters);
    const next = q.data.continue;
    body = (
      <>
        {!q.data.hostRegistered && <GetStarted onboarding={q.data.onboarding} onManual={() => setWizard('host')} />}
        {q.data.hostRegistered && q.data.onboarding.serverOnly && (
          <p className="panel muted" role="status" data-testid="onboarding-reason">{q.data.onboarding.connect.reason}</p>
        )}
        {(items.length > 0 || filtered) && <ClusterFilterBar value={filters} teams={teams} onChange={onFilters} />}
        {items.length === 0 && filtered && <Empty>No clusters match these filters.</Empty>}
        {items.length === 0 && !filtered && q.data.hostRegistered && <Empty>No clusters yet.</Empty>}
        {items.length > 0 && (
          <>
            <p className="muted" aria-live="polite" data-testid="cluster-count">{countText(items.length, cursors.length, Boolean(next))} · refreshes every few seconds</p>
            <div className="cards">
              {items.map((c) => (
                <ClusterCard key={c.id} cluster={c} withHealth={items.length <= HEALTH_BADGES_UP_TO}
                  onDisconnect={onDisconnect} onTeardown={onTeardown} />
              ))}
            </div>
          </>
        )}
        <Pager label="Cluster pages" page={cursors.length} hasPrevious={cursors.length > 1} hasNext={Boolean(next)}
          busy={q.isPlaceholderData} onPrevious={() => setCursors((c) => c.slice(0, -1))} onNext={() => next && setCursors((c) => [...c, next])} />
      </>
    );
  }

  return (
    <>
      <div className="page-head">
        <h1>Clusters</h1>
        <div className="actions">
          <Link to="/clusters/multi">Multi-Cluster View</Link>
          {mayMake && !q.data?.onboarding.serverOnly && (
            <button type="button" className="primary" onClick={() => setWizard('new')}>New Cluster</button>
          )}
        </div>
      </div>
      {body}
      {wizard && <ClusterWizard offerHost={wizard === 'host'} onClose={() => setWizard('')} />}
      {disconnecting && <DisconnectDialog cluster={disconnecting} onClose={() => setDisconnecting(null)}
        onTeardown={() => { setTearingDown(disconnecting); setDisconnecting(null); }} />}
      {tearingDown && <TeardownDialog cluster={tearingDown} onClose={() => setTearingDown(null)} />}
    </>
  );
}
