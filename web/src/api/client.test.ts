// The client calls only what the document has: each line marked below as
// an expected error must not type-check (tsc fails the build if one does),
// and the URLs it builds are the document's paths with their parameters.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, call, type ClusterDetail } from './client';

// Type checks, never run: each marked line is an error the document causes.
export function neverCalled() {
  // @ts-expect-error a path the document does not have
  void call('get', '/api/v1/clusterz', {});
  // @ts-expect-error a method the document does not have for the path
  void call('put', '/api/v1/clusters/{id}', { path: { id: 'x' } });
  // @ts-expect-error a path parameter left out
  void call('get', '/api/v1/clusters/{id}', {});
  // @ts-expect-error a body field the document does not have
  void call('post', '/api/v1/teams', { body: { team: 'x' } });
  // @ts-expect-error a query parameter value outside the document's enum
  void api.clusters({ phase: 'Sleeping' });
  // The answer is the document's type for the 200.
  const detail: Promise<ClusterDetail> = api.cluster('x');
  void detail;
}

describe('call', () => {
  afterEach(() => vi.unstubAllGlobals());
  it('fills the path parameters, encoded, and the query parameters that are set', async () => {
    const seen: string[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      seen.push(`${init.method} ${url}`);
      return new Response('{}', { status: 200 });
    });
    await api.members('team/a');
    await api.clusters({ limit: 5, phase: 'Ready', namePrefix: '' });
    await api.setMember('t', 'u 1', 'operator');
    expect(seen).toEqual([
      'GET /api/v1/teams/team%2Fa/members',
      'GET /api/v1/clusters?limit=5&phase=Ready',
      'PUT /api/v1/teams/t/members/u%201',
    ]);
  });
});
