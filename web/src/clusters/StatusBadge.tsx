import type { HealthScore } from '../api/client';
import type { Badge } from './phases';

/**
 * A cluster's phase in the colour the API gives it (its badge field): the
 * dashboard computes no colours, so the two cannot disagree.
 */
export function StatusBadge({ status, badge }: { status?: string; badge: Badge }) {
  return (
    <span className={`badge ${badge}`} data-colour={badge}>
      <span className="sr-only">Status: </span>{status || 'Unknown'}
    </span>
  );
}

/** The CSS colour of a health badge; "unknown" shows gray. */
export function healthColour(badge: HealthScore['badge'] | undefined): Badge {
  return !badge || badge === 'unknown' ? 'gray' : badge;
}

/** The health score badge, in the colour the API gives it. */
export function HealthBadge({ score, badge }: Pick<HealthScore, 'score' | 'badge'>) {
  const colour = healthColour(badge);
  return (
    <span className={`badge ${colour}`} data-colour={colour} title="Health score">
      Health {Math.round(score)}
    </span>
  );
}
