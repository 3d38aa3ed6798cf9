import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { clusterKeys } from './queries';

/**
 * Shown while no host cluster exists (not merely while there are no
 * clusters). Registering this cluster is a platform admin's; setting one up
 * by hand is for anyone who may make clusters (admin on some team).
 */
export function GetStarted({ admin, mayMake, onManual }: { admin: boolean; mayMake: boolean; onManual: () => void }) {
  const qc = useQueryClient();
  const register = useMutation({
    mutationFn: api.registerSelf,
    onSuccess: () => qc.invalidateQueries({ queryKey: clusterKeys.all }),
  });
  return (
    <section className="panel get-started" aria-labelledby="get-started-title">
      <h2 id="get-started-title">Get Started</h2>
      <p>KubeOpera has no host cluster yet: the cluster it runs its own control plane on.</p>
      {mayMake ? (
        <>
          <div className="choices">
            {admin && (
              <div>
                <button type="button" className="primary" disabled={register.isPending} onClick={() => register.mutate()}>
                  {register.isPending ? 'Registering…' : 'Register This Cluster'}
                </button>
                <p className="help">One click: KubeOpera inspects the cluster it is running in. Nothing to type.</p>
              </div>
            )}
            <div>
              <button type="button" className={admin ? undefined : 'primary'} onClick={onManual}>Set Up Manually</button>
              <p className="help">Connect a cluster by kubeconfig, or create a new one on a cloud provider.</p>
            </div>
          </div>
          {register.error && <p className="error" role="alert">{register.error.message}</p>}
        </>
      ) : (
        <p className="muted">A platform admin can register this cluster or set one up.</p>
      )}
    </section>
  );
}
