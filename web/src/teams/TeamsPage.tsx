import { useState } from 'react';
import { Link } from 'react-router';
import type { TeamSummary } from '../api/client';
import { Empty, ErrorState, Loading } from '../ui/states';
import { AddTeam } from './AddTeam';
import { DeleteTeamDialog } from './DeleteTeamDialog';
import { useTeams } from './queries';
import { TeamMembers } from './TeamMembers';

function TeamRow({ t, open, onMembers, onDelete }: { t: TeamSummary; open: boolean; onMembers: () => void; onDelete: () => void }) {
  return (
    <tr>
      <th scope="row">{t.name}</th>
      <td>{t.members}</td>
      <td><Link to={`/clusters?team=${encodeURIComponent(t.name)}`} aria-label={`${t.clusters} clusters of ${t.name}`}>{t.clusters}</Link></td>
      <td>{t.credentials}</td>
      <td className="actions">
        <button type="button" aria-pressed={open} aria-label={`Members of ${t.name}`} onClick={onMembers}>Members</button>
        <button type="button" className="danger" aria-label={`Delete team ${t.name}`} onClick={onDelete}>Delete</button>
      </td>
    </tr>
  );
}

/** Teams for platform admins: what each owns, creating and deleting them, and each team's members. */
export function TeamsPage() {
  const q = useTeams();
  const [open, setOpen] = useState('');
  const [deleting, setDeleting] = useState<TeamSummary>();
  const shown = q.data?.items.some((t) => t.name === open) ? open : '';
  return (
    <>
      <div className="page-head"><h1>Teams</h1></div>
      <section className="panel" aria-labelledby="teams-title">
        <h2 id="teams-title">Teams and what they own</h2>
        {q.isPending ? <Loading what="teams" />
          : q.isError ? <ErrorState title="The teams could not be loaded." error={q.error} onRetry={() => q.refetch()} />
          : q.data.items.length === 0 ? <Empty>No teams.</Empty>
          : (
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Teams</caption>
                <thead><tr><th scope="col">Team</th><th scope="col">Members</th><th scope="col">Clusters</th><th scope="col">Credentials</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
                <tbody>
                  {q.data.items.map((t) => (
                    <TeamRow key={t.name} t={t} open={shown === t.name}
                      onMembers={() => setOpen(shown === t.name ? '' : t.name)} onDelete={() => setDeleting(t)} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </section>
      {shown && <TeamMembers key={shown} team={shown} />}
      <AddTeam onCreated={setOpen} />
      {deleting && <DeleteTeamDialog team={deleting} onClose={() => setDeleting(undefined)} />}
    </>
  );
}
