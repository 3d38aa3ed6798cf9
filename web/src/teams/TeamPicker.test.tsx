import { describe, expect, it } from 'vitest';
import type { TeamSummary } from '../api/client';
import { ClusterFilterBar } from '../clusters/ClusterFilterBar';
import { renderWith } from '../testkit/render';
import { teamKeys } from './queries';
import { TeamPicker } from './TeamPicker';

const team = (name: string, role?: TeamSummary['role']): TeamSummary => ({ name, role, created_at: '', members: 1, clusters: 0, credentials: 0 });
const picker = (teams: TeamSummary[], value = '') =>
  renderWith(<TeamPicker value={value} onChange={() => {}} what="cluster" />, [[teamKeys.all, { items: teams }]]);

describe('TeamPicker (a team admin, not a platform admin)', () => {
  it('offers only the teams the caller administers, starting at the first when default is not one', () => {
    const html = picker([team('default', 'viewer'), team('payments', 'admin'), team('search', 'operator'), team('ml', 'admin')]);
    expect(html).toContain('<option value="payments" selected="">payments</option>');
    expect(html).toContain('<option value="ml">ml</option>');
    expect(html).not.toContain('search');
    expect(html).not.toContain('value="default"');
  });
  it('starts at default when the caller administers it', () => {
    expect(picker([team('payments', 'admin'), team('default', 'admin')])).toContain('<option value="default" selected="">default</option>');
  });
  it('keeps what was picked', () => {
    expect(picker([team('default', 'admin'), team('ml', 'admin')], 'ml')).toContain('<option value="ml" selected="">ml</option>');
  });
  it('is left out when there is only one choice', () => {
    expect(picker([team('default', 'viewer'), team('payments', 'admin')])).toBe('');
    expect(picker([])).toBe('');
  });
});

describe('the team filter on /clusters', () => {
  const bar = (teams: string[], value = {}) => renderWith(<ClusterFilterBar value={value} teams={teams} onChange={() => {}} />);
  it('is offered when the caller sees more than one team', () => {
    const html = bar(['default', 'payments']);
    expect(html).toContain('name="team"');
    expect(html).toContain('<option value="payments">payments</option>');
  });
  it('is left out for one team, unless the address already names one', () => {
    expect(bar(['default'])).not.toContain('name="team"');
    expect(bar(['default'], { team: 'gone' })).toContain('<option value="gone" selected="">gone</option>');
  });
});
