import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Cluster } from '../api/client';
import { clusterPermits } from '../teams/roles';
import { TeardownDialog } from './DisconnectDialog';
import { useDayTwo } from './dayTwo';
import { RetryAction } from './RetryAction';
import { ScaleDialog } from './ScaleDialog';
import { UpgradeDialog } from './UpgradeDialog';

type Open = 'scale' | 'upgrade' | 'teardown' | null;

/**
 * Scale, Upgrade and Tear down on the cluster page, where the plugin
 * supports them and the caller's role on the cluster allows them
 * (operator: scale, upgrade, retry; admin: tear down), and Retry where the
 * server's actions allow it. Whether each may be asked now (the phase) is
 * the server's `actions`, with its reason shown on a disabled button.
 */
export function DayTwoActions({ cluster: c }: { cluster: Cluster }) {
  const permits = clusterPermits(c.role);
  const plugin = useDayTwo(c);
  const can = {
    scale: permits.dayTwo && plugin.scale,
    upgrade: permits.dayTwo && plugin.upgrade,
    destroy: permits.lifecycle && plugin.destroy,
    upgradeTargets: plugin.upgradeTargets,
  };
  const navigate = useNavigate();
  const [open, setOpen] = useState<Open>(null);
  const actions = c.actions;
  const retry = actions?.retry.allowed ?? false;
  if (!(can.scale || can.upgrade || can.destroy || retry)) return null;
  const ready = c.status === 'Ready';
  const close = () => setOpen(null);
  return (
    <section className="panel" aria-labelledby="changes-title">
      <h2 id="changes-title">Changes</h2>
      {c.status === 'Updating' ? (
        <p role="status" data-testid="change-progress"><strong>Updating:</strong> {c.message || 'the provider plugin is changing the cluster.'}</p>
      ) : !ready && (can.scale || can.upgrade) && <p className="muted">Scale and upgrade are offered once the cluster is Ready (it is {c.status}).</p>}
      {retry && <RetryAction cluster={c} />}
      <div className="card-actions">
        {can.scale && <button type="button" disabled={!ready} onClick={() => setOpen('scale')}>Scale</button>}
        {can.upgrade && <button type="button" disabled={!ready} onClick={() => setOpen('upgrade')}>Upgrade</button>}
        {can.destroy && (
          <button type="button" className="danger" disabled={!actions?.teardown.allowed} title={actions?.teardown.reason}
            onClick={() => setOpen('teardown')}>Tear down</button>
        )}
      </div>
      {open === 'scale' && <ScaleDialog cluster={c} onClose={close} />}
      {open === 'upgrade' && <UpgradeDialog cluster={c} targets={can.upgradeTargets} onClose={close} />}
      {open === 'teardown' && <TeardownDialog cluster={c} onClose={close} onDone={() => navigate('/clusters')} />}
    </section>
  );
}
