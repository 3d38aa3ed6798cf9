import { api, type TeamSummary } from '../api/client';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { useTeamChange } from './queries';

/**
 * Asks before deleting a team. The server refuses (409) the default team
 * and a team that still owns clusters or credentials; its reason is shown
 * in the dialog.
 */
export function DeleteTeamDialog({ team: t, onClose }: { team: TeamSummary; onClose: () => void }) {
  const del = useTeamChange(() => api.deleteTeam(t.name));
  return (
    <ConfirmDialog title={`Delete team ${t.name}?`} confirm="Delete team" busy={del.isPending} error={del.error}
      onConfirm={() => del.mutate(undefined, { onSuccess: onClose })} onClose={onClose}>
      <p>
        Its {t.members} {t.members === 1 ? 'membership ends' : 'memberships end'} at once. A team that still owns clusters or
        credentials cannot be deleted; the default team never can.
      </p>
      <p className="muted" data-testid="team-owns">It owns {t.clusters} {t.clusters === 1 ? 'cluster' : 'clusters'} and {t.credentials} {t.credentials === 1 ? 'credential' : 'credentials'}.</p>
    </ConfirmDialog>
  );
}
