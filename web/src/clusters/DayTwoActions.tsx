import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Cluster } from '../api/client';
import { TeardownDialog } from './DisconnectDialog';
import { RetryAction } from './RetryAction';
import { ScaleDialog } from './ScaleDialog';
import { UpgradeDialog } from './UpgradeDialog';

type Open = 'scale' | 'upgrade' | 'teardown' | null;

/**
 * Scale, Upgrade, Tear down and Retry on the cluster page, as the server's
 * `actions` say: each is shown where it is offered (the caller's role, how
 * the cluster came and what its plugin can do), enabled where it is
 * allowed now, with the reason on a disabled one. Nothing is decided here.
 */
export function DayTwoActions({ cluster: c }: { cluster: Cluster }) {
  const navigate = useNavigate();
  const [open, setOpen] = useState<Open>(null);
  const a = c.actions;
  if (!a || !(a.scale.offered || a.upgrade.offered || a.teardown.offered || a.retry.allowed)) return null;
  const changing = a.scale.offered || a.upgrade.offered;
  const close = () => setOpen(null);
  return (
    <section className="panel" aria-labelledby="changes-title">
      <h2 id="changes-title">Changes</h2>
      {c.status === 'Updating' ? (
        <p role="status" data-testid="change-progress"><strong>Updating:</strong> {c.message || 'the provider plugin is changing the cluster.'}</p>
      ) : changing && !a.scale.allowed && !a.upgrade.allowed && (
        <p className="muted" data-testid="change-refusal">Scale and upgrade are not possible now: {a.scale.reason || a.upgrade.reason}.</p>
      )}
      {a.retry.allowed && <RetryAction cluster={c} />}
      <div className="card-actions">
        {a.scale.offered && <button type="button" disabled={!a.scale.allowed} title={a.scale.reason} onClick={() => setOpen('scale')}>Scale</button>}
        {a.upgrade.offered && (
          <button type="button" disabled={!a.upgrade.allowed} title={a.upgrade.reason} onClick={() => setOpen('upgrade')}>Upgrade</button>
        )}
        {a.teardown.offered && (
          <button type="button" className="danger" disabled={!a.teardown.allowed} title={a.teardown.reason}
            onClick={() => setOpen('teardown')}>Tear down</button>
        )}
      </div>
      {open === 'scale' && <ScaleDialog cluster={c} min={a.scale.min} max={a.scale.max} onClose={close} />}
      {open === 'upgrade' && <UpgradeDialog cluster={c} targets={a.upgrade.targets} onClose={close} />}
      {open === 'teardown' && <TeardownDialog cluster={c} onClose={close} onDone={() => navigate('/clusters')} />}
    </section>
  );
}
