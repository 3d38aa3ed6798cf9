import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { clusterKeys } from '../clusters/queries';
import { Dialog } from '../ui/Dialog';
import { ConnectForm } from './ConnectForm';
import { CreateForm } from './CreateForm';

type Path = 'connect' | 'create';

/** The Cluster Setup Wizard. It closes as soon as the server accepts a
 * request: progress shows on the new card, not in a dialog that looks stuck.
 * offerHost (no host cluster yet) lets a connected cluster become the host. */
export function ClusterWizard({ onClose, offerHost = false }: { onClose: () => void; offerHost?: boolean }) {
  const [path, setPath] = useState<Path>('connect');
  const qc = useQueryClient();
  const done = () => {
    qc.invalidateQueries({ queryKey: clusterKeys.all });
    onClose();
  };
  return (
    <Dialog title="Cluster Setup Wizard" onClose={onClose} wide>
      <div className="dialog-body">
        <div className="tabs" role="group" aria-label="How to add a cluster">
          <button type="button" aria-pressed={path === 'connect'} onClick={() => setPath('connect')}>Connect Existing</button>
          <button type="button" aria-pressed={path === 'create'} onClick={() => setPath('create')}>Create New</button>
        </div>
        {path === 'connect' ? <ConnectForm onDone={done} offerHost={offerHost} /> : <CreateForm onDone={done} />}
      </div>
    </Dialog>
  );
}
