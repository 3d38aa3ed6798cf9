import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { clusterBadgeValues } from '../api/schema';
import { HealthBadge, healthColour, StatusBadge } from './StatusBadge';
import { sourceLabel, sources } from './labels';

describe('StatusBadge', () => {
  it('shows the colour the API gives, whatever the phase (TearingDown is amber)', () => {
    const html = renderToStaticMarkup(<StatusBadge status="TearingDown" badge="amber" />);
    expect(html).toContain('data-colour="amber"');
    expect(html).toContain('TearingDown');
  });

  it.each(clusterBadgeValues)('renders badge %s as its CSS class', (badge) => {
    expect(renderToStaticMarkup(<StatusBadge status="Ready" badge={badge} />)).toContain(`class="badge ${badge}"`);
  });
});

describe('HealthBadge', () => {
  it('shows an unknown health as gray and the score rounded', () => {
    expect(healthColour('unknown')).toBe('gray');
    expect(healthColour(undefined)).toBe('gray');
    const html = renderToStaticMarkup(<HealthBadge score={79.6} badge="green" />);
    expect(html).toContain('data-colour="green"');
    expect(html).toContain('Health 80');
  });
});

describe('source labels', () => {
  it('labels every source of the document, provisioned included', () => {
    for (const s of sources) expect(sourceLabel(s)).not.toBe(s);
    expect(sourceLabel('provisioned')).toBe('Provisioned');
  });

  it('shows an unknown source as given, and none as a dash', () => {
    expect(sourceLabel('from_mars')).toBe('from_mars');
    expect(sourceLabel(undefined)).toBe('—');
  });
});
