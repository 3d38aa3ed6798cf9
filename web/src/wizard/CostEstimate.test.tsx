import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApiError, type Estimate, type Problem, type Provider } from '../api/client';
import { CostEstimate, money, rate } from './CostEstimate';
import { givesEstimate } from './useEstimate';

const eks: Estimate = {
  currency: 'USD',
  hourly: 0.237583,
  monthly: 173.43559,
  priceDate: '2026-12-01',
  source: 'AWS on-demand list prices',
  excludes: ['data through the NAT gateway'],
  lines: [
    { item: 'EKS control plane', unit: 'cluster', quantity: 1, unitHourly: 0.1, hourly: 0.1 },
    { item: 't3.medium nodes', unit: 'instance', quantity: 2, unitHourly: 0.0416, hourly: 0.0832 },
    { item: 'gp3 root volumes (20 GiB a node)', unit: 'GiB', quantity: 40, unitHourly: 0.000109589, hourly: 0.004384 },
  ],
};

describe('CostEstimate', () => {
  it('shows the total an hour and a month, every line, the price date and what it leaves out', () => {
    const html = renderToStaticMarkup(<CostEstimate estimate={eks} />);
    expect(html).toContain('About <strong>$0.24</strong> an hour');
    expect(html).toContain('about $173.44 a month');
    expect(html).toContain('<td>2 instance</td><td>$0.0416</td><td>$0.08</td>');
    expect(html).toContain('Prices of 2026-12-01: AWS on-demand list prices.');
    expect(html).toContain('Leaves out data through the NAT gateway.');
  });

  it('says why there is no figure when the plugin refuses the inputs', () => {
    const refusal = new ApiError(400, {
      title: 'Bad Request', status: 400, detail: '',
      fields: [{ field: 'inputs.region', message: 'the price table has no prices for "eu-north-1"; it has us-east-1' }],
    } as Problem);
    const html = renderToStaticMarkup(<CostEstimate estimate={eks} error={refusal} />);
    expect(html).toContain('No estimate: the price table has no prices for &quot;eu-north-1&quot;; it has us-east-1');
    expect(html).not.toContain('$0.24');
  });

  it('shows nothing without an estimate', () => {
    expect(renderToStaticMarkup(<CostEstimate />)).toBe('');
  });

  it('writes amounts to the cent and unit prices to three significant digits', () => {
    expect(money(0.237583, 'USD')).toBe('$0.24');
    expect(money(0.004384, 'USD')).toBe('$0.0044');
    expect(money(12, 'EUR')).toBe('€12.00');
    expect(rate(0.0416, 'USD')).toBe('$0.0416');
    expect(rate(0.1, 'USD')).toBe('$0.10');
    expect(rate(0.000109589, 'USD')).toBe('$0.00011');
  });
});

describe('givesEstimate', () => {
  const p = (capabilities: string[], availability: Provider['availability'] = 'AVAILABLE') => ({ capabilities, availability }) as Provider;
  it('asks only an available plugin that declares "estimate"', () => {
    expect(givesEstimate(p(['provision', 'estimate']))).toBe(true);
    expect(givesEstimate(p(['provision']))).toBe(false);
    expect(givesEstimate(p(['estimate'], 'SOON'))).toBe(false);
    expect(givesEstimate(null)).toBe(false);
  });
});
