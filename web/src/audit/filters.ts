// What the audit page asks the API for: the form's values turned into the
// query GET /audit takes. Pure, so it is tested without a browser.
import type { AuditEvent, AuditQuery } from '../api/client';

/** The filter form as typed; times are <input type="datetime-local"> values, in the browser's zone. */
export type AuditFilters = { actor: string; target: string; since: string; until: string };

export const noFilters: AuditFilters = { actor: '', target: '', since: '', until: '' };

/** Events per page, as the API pages them. */
export const AUDIT_PAGE_SIZE = 50;

/** A datetime-local value ("2026-12-07T18:00") as RFC 3339 in UTC; undefined when empty or not a time. */
export function toRFC3339(local: string): string | undefined {
  if (!local) return undefined;
  const t = new Date(local);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

/** What is wrong with the filters, by field; empty when they can be sent. */
export function filterProblems(f: AuditFilters): Partial<Record<keyof AuditFilters, string>> {
  const out: Partial<Record<keyof AuditFilters, string>> = {};
  const since = toRFC3339(f.since);
  const until = toRFC3339(f.until);
  if (f.since && !since) out.since = 'Enter a date and time.';
  if (f.until && !until) out.until = 'Enter a date and time.';
  if (since && until && since >= until) out.until = 'Must be later than From.';
  return out;
}

/** The query of one page: the filters that are set, the page size and the page's cursor. */
export function auditQuery(f: AuditFilters, before = ''): AuditQuery {
  const q: AuditQuery = { limit: AUDIT_PAGE_SIZE };
  const actor = f.actor.trim();
  const target = f.target.trim();
  if (actor) q.actor = actor;
  if (target) q.target = target;
  const since = toRFC3339(f.since);
  const until = toRFC3339(f.until);
  if (since) q.since = since;
  if (until) q.until = until;
  if (before) q.before = before;
  return q;
}

/** The outcome of an event in words: the status and what it means. */
export function outcome(e: Pick<AuditEvent, 'status'>): { text: string; failed: boolean } {
  const s = e.status;
  if (s >= 200 && s < 400) return { text: `${s} done`, failed: false };
  const why: Record<number, string> = { 400: 'invalid', 401: 'not signed in', 403: 'refused', 404: 'not found', 409: 'conflict', 429: 'too many tries' };
  return { text: `${s} ${why[s] ?? (s >= 500 ? 'server error' : 'failed')}`, failed: true };
}
