// What the caller's role allows, as the server ranks roles (server/access):
// each role includes the ones before it. The server still decides every
// request; these only leave out buttons that would be refused.
import { memberRoleValues } from '../api/schema';
import type { TeamSummary } from '../api/client';

/** The team made for installations that never make a second; the server's default when none is named. */
export const DEFAULT_TEAM = 'default';

/** A role on a team's clusters: a team role, or the global platform-admin, who administers every team. */
export type Access = (typeof memberRoleValues)[number] | 'platform-admin';

/** Team roles from the document, lowest first, then platform-admin above them. */
const ranked: readonly string[] = [...memberRoleValues, 'platform-admin'];

/**
 * Whether role (a cluster's `role`, a team's, or none) allows what needs
 * `need`. An unknown or missing role allows nothing.
 */
export function allows(role: string | undefined, need: Access): boolean {
  const have = role ? ranked.indexOf(role) : -1;
  return have >= 0 && have >= ranked.indexOf(need);
}

/**
 * The teams a caller may make clusters and credentials in: every team for
 * a platform admin, else those where they are admin; in the order listed.
 */
export function teamsToMakeIn(teams: Pick<TeamSummary, 'name' | 'role'>[], platformAdmin: boolean): string[] {
  return teams.filter((t) => platformAdmin || allows(t.role, 'admin')).map((t) => t.name);
}

/** The team a form sends: the one picked if it is offered, else "default" when offered, else the first offered. */
export function chosenTeam(picked: string, offered: readonly string[]): string {
  if (picked && offered.includes(picked)) return picked;
  return offered.includes(DEFAULT_TEAM) ? DEFAULT_TEAM : (offered[0] ?? DEFAULT_TEAM);
}
