import { ApiError, type Estimate } from '../api/client';

function format(amount: number, currency: string, digits: number, fewest = digits): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: fewest, maximumFractionDigits: digits }).format(amount);
}

/** An amount in the estimate's currency, to the cent; one under a cent with two significant digits. */
export function money(amount: number, currency: string): string {
  return format(amount, currency, amount > 0 && amount < 0.01 ? decimals(amount, 2) : 2);
}

/** A unit price, to three significant digits and at least the cents ($0.0416, $0.10, $0.00011). */
export function rate(amount: number, currency: string): string {
  return format(amount, currency, amount > 0 ? Math.max(2, decimals(amount, 3)) : 2, 2);
}

/** The decimals that show amount (under 1) with significant digits. */
function decimals(amount: number, significant: number): number {
  return Math.min(8, Math.max(0, -Math.floor(Math.log10(amount)) - 1 + significant));
}

type Props = { estimate?: Estimate; error?: unknown; updating?: boolean; title?: string };

/**
 * What the cluster the form describes would cost, from the plugin's price
 * table: the total an hour and a month, each line, the table's date and
 * source, and what it leaves out. A refusal (an input the table cannot
 * price) says why instead of a figure; with neither, nothing is shown.
 */
export function CostEstimate({ estimate, error, updating, title = 'Cost estimate' }: Props) {
  if (error) {
    const fields = error instanceof ApiError ? Object.values(error.fieldErrors()) : [];
    const why = fields.length > 0 ? fields.join('; ') : error instanceof Error ? error.message : String(error);
    return (
      <section className="estimate" aria-label={title}>
        <h3>{title}</h3>
        <p className="muted">No estimate: {why}</p>
      </section>
    );
  }
  if (!estimate) return null;
  const c = estimate.currency;
  return (
    <section className="estimate" aria-label={title} aria-busy={updating || undefined}>
      <h3>{title}</h3>
      <p>
        About <strong>{money(estimate.hourly, c)}</strong> an hour (about {money(estimate.monthly, c)} a month of 730 hours)
      </p>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr><th scope="col">What runs</th><th scope="col">Quantity</th><th scope="col">Each, an hour</th><th scope="col">An hour</th></tr>
          </thead>
          <tbody>
            {estimate.lines.map((l) => (
              <tr key={l.item}>
                <td>{l.item}</td>
                <td>{l.quantity} {l.unit}</td>
                <td>{rate(l.unitHourly, c)}</td>
                <td>{money(l.hourly, c)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted">
        Prices of {estimate.priceDate}: {estimate.source}.
        {estimate.excludes.length > 0 && <> Leaves out {estimate.excludes.join('; ')}.</>}
      </p>
    </section>
  );
}
