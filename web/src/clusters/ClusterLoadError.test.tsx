import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { ApiError, type Problem } from '../api/client';
import { ClusterLoadError } from './ClusterLoadError';

const render = (error: unknown) =>
  renderToStaticMarkup(<MemoryRouter><ClusterLoadError id="nope" error={error} onRetry={() => {}} /></MemoryRouter>);

describe('ClusterLoadError', () => {
  it('says an unknown ID does not exist, links back to the list and offers no Retry', () => {
    const html = render(new ApiError(404, { status: 404, title: 'Not Found', detail: 'cluster "nope" not found' } as Problem));
    expect(html).toContain('No cluster has the ID <code>nope</code>.');
    expect(html).toContain('href="/clusters"');
    expect(html).not.toContain('Retry');
  });
  it('offers Retry for a failure that may pass', () => {
    const html = render(new ApiError(502, { status: 502, title: 'Bad Gateway', detail: 'the database is down' } as Problem));
    expect(html).toContain('The cluster could not be loaded.');
    expect(html).toContain('>Retry</button>');
  });
});
