import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { useIsAdmin } from '../auth/session';
import { teamsToMakeIn } from './roles';

export const teamKeys = {
  all: ['teams'] as const,
  members: (team: string) => ['teams', team, 'members'] as const,
};

/** The teams the caller may see, each with what it owns and the caller's role there. */
export function useTeams() {
  return useQuery({ queryKey: teamKeys.all, queryFn: api.teams });
}

export function useMembers(team: string) {
  return useQuery({ queryKey: teamKeys.members(team), queryFn: () => api.members(team) });
}

/** A change to teams or members that refreshes them (and the counts) once it is done. */
export function useTeamChange<A, R>(fn: (a: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => qc.invalidateQueries({ queryKey: teamKeys.all }) });
}

/**
 * The teams the caller may make clusters and credentials in, and whether
 * that is any at all (a platform admin always may: there is always the
 * default team).
 */
export function useTeamsToMakeIn() {
  const platformAdmin = useIsAdmin();
  const q = useTeams();
  const teams = teamsToMakeIn(q.data?.items ?? [], platformAdmin);
  return { teams, mayMake: platformAdmin || teams.length > 0, isPending: q.isPending && !platformAdmin, error: q.error };
}
