import { Link } from 'react-router';
import { ApiError } from '../api/client';
import { ErrorState } from '../ui/states';

/**
 * Why a cluster page has no cluster: an ID the server does not know (404)
 * will not appear by asking again, so it says the cluster does not exist
 * and leads back to the list; anything else may pass, and offers Retry.
 */
export function ClusterLoadError({ id, error, onRetry }: { id: string; error: unknown; onRetry: () => void }) {
  if (error instanceof ApiError && error.status === 404) {
    return (
      <div className="state error-state" role="alert">
        <p><strong>No cluster has the ID <code>{id}</code>.</strong></p>
        <p>It does not exist, or it was disconnected or torn down. <Link to="/clusters">Back to the clusters</Link></p>
      </div>
    );
  }
  return <ErrorState title="The cluster could not be loaded." error={error} onRetry={onRetry} />;
}
