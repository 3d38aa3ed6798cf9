import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type AuditQuery } from '../api/client';

export const auditKeys = {
  all: ['audit'] as const,
  page: (q: AuditQuery) => ['audit', 'page', q] as const,
};

/** One page of the audit log as the API pages it; the page shown stays while the next loads. */
export function useAuditPage(q: AuditQuery) {
  return useQuery({ queryKey: auditKeys.page(q), queryFn: () => api.audit(q), placeholderData: keepPreviousData });
}
