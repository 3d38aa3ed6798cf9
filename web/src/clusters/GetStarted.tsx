import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type ClusterList } from '../api/client';
import { clusterKeys } from './queries';

/**
 * Shown while no host cluster exists (not merely while there are no
 * clusters). Each way in is offered only where the server says it works
 * for this caller now (`onboarding` of GET /clusters: the server's mode,
 * then the role); otherwise its reason is said once, before any form.
 */
export function GetStarted({ onboarding, onManual }: { onboarding: ClusterList['onboarding']; onManual: () => void }) {
  const admin = onboarding.registerSelf.allowed;
  const mayMake = onboarding.connect.allowed || onboarding.provision.allowed;
  const qc = useQueryClient();
  const register = useMutation({
    mutationFn: api.registerSelf,
    onSuccess: () => qc.invalidateQueries({ queryKey: clusterKeys.all }),
  });
  return (
    <section className="panel get-started" aria-labelledby="get-started-title">
      <h2 id="get-started-title">Get Started</h2>
      <p>KubeOpera has no host cluster yet: the cluster it runs its own control plane on.</p>
      {admin || mayMake ? (
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
            {mayMake && (
              <div>
                <button type="button" className={admin ? undefined : 'primary'} onClick={onManual}>Set Up Manually</button>
                <p className="help">Connect a cluster by kubeconfig, or create a new one on a cloud provider.</p>
              </div>
            )}
          </div>
          {register.error && <p className="error" role="alert">{register.error.message}</p>}
        </>
      ) : (
        <p className="muted" role="status" data-testid="onboarding-reason">{onboarding.connect.reason}</p>
      )}
    </section>
  );
}
