/** The phase colours of the product description: amber in progress, green ready, red failed. */
const amber = ['pending', 'provisioning', 'validatingaccess', 'bootstrappingflux', 'generatinggitopstree', 'installingkubeopera', 'deleting'];
const green = ['ready', 'running', 'active'];
const red = ['failed', 'error'];

export function statusColour(status: string | undefined): 'amber' | 'green' | 'red' | 'gray' {
  const s = (status ?? '').toLowerCase();
  if (amber.includes(s)) return 'amber';
  if (green.includes(s)) return 'green';
  if (red.includes(s)) return 'red';
  return 'gray';
}

export function StatusBadge({ status }: { status?: string }) {
  const colour = statusColour(status);
  return (
    <span className={`badge ${colour}`} data-colour={colour}>
      <span className="sr-only">Status: </span>{status || 'Unknown'}
    </span>
  );
}

/** The health score badge: ≥80 green, 60–79 amber, below 60 red. */
export function HealthBadge({ score }: { score: number }) {
  const colour = score >= 80 ? 'green' : score >= 60 ? 'amber' : 'red';
  return (
    <span className={`badge ${colour}`} data-colour={colour} title="Health score">
      Health {Math.round(score)}
    </span>
  );
}
