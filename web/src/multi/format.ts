export function pct(v: number | undefined): string {
  return `${(v ?? 0).toFixed(1)}%`;
}

export function money(v: number | undefined, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency || 'USD', maximumFractionDigits: 2 }).format(v ?? 0);
}

/** "part/total", as the summary cards show a count of a whole. */
export function ratio(part: number | undefined, total: number | undefined): string {
  return `${part ?? 0}/${total ?? 0}`;
}
