import { describe, expect, it } from 'vitest';
import { AUDIT_PAGE_SIZE, auditQuery, filterProblems, noFilters, outcome, toRFC3339 } from './filters';

describe('toRFC3339', () => {
  it('turns a local date and time into the same instant in UTC', () => {
    const local = '2026-12-07T18:30';
    expect(toRFC3339(local)).toBe(new Date(2026, 11, 7, 18, 30).toISOString());
  });
  it('leaves an empty or unreadable value out', () => {
    expect(toRFC3339('')).toBeUndefined();
    expect(toRFC3339('yesterday')).toBeUndefined();
  });
});

describe('auditQuery', () => {
  it('asks for the first page with only the page size when nothing is filtered', () => {
    expect(auditQuery(noFilters)).toEqual({ limit: AUDIT_PAGE_SIZE });
  });
  it('sends the filters that are set, trimmed, with the page cursor', () => {
    const q = auditQuery({ actor: ' ops ', target: '', since: '2026-12-07T18:00', until: '' }, 'evt-50');
    expect(q).toEqual({ limit: AUDIT_PAGE_SIZE, actor: 'ops', since: new Date(2026, 11, 7, 18, 0).toISOString(), before: 'evt-50' });
  });
});

describe('filterProblems', () => {
  it('accepts a window whose end is after its start', () => {
    expect(filterProblems({ ...noFilters, since: '2026-12-07T18:00', until: '2026-12-07T19:00' })).toEqual({});
  });
  it('refuses a window that ends before it starts, at the end field', () => {
    expect(filterProblems({ ...noFilters, since: '2026-12-07T19:00', until: '2026-12-07T18:00' })).toEqual({ until: 'Must be later than From.' });
  });
  it('refuses a time it cannot read', () => {
    expect(filterProblems({ ...noFilters, since: 'soon' })).toEqual({ since: 'Enter a date and time.' });
  });
});

describe('outcome', () => {
  it.each([
    [204, '204 done', false],
    [403, '403 refused', true],
    [409, '409 conflict', true],
    [503, '503 server error', true],
    [418, '418 failed', true],
  ])('status %i reads "%s"', (status, text, failed) => {
    expect(outcome({ status })).toEqual({ text, failed });
  });
});
