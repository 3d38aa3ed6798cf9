import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import { Field } from '../ui/Field';
import { TeamPicker, useChosenTeam } from '../teams/TeamPicker';
import { emptyPipeline, PipelineFields } from './PipelineFields';

export function ConnectForm({ onDone, offerHost }: { onDone: () => void; offerHost: boolean }) {
  const [name, setName] = useState('');
  const [picked, setPicked] = useState('');
  const team = useChosenTeam(picked);
  const [provider, setProvider] = useState('aws');
  const [region, setRegion] = useState('');
  const [kubeconfig, setKubeconfig] = useState('');
  const [pipeline, setPipeline] = useState(emptyPipeline);
  // Offered while there is no host cluster: the manual path of Get Started.
  const [isHost, setIsHost] = useState(offerHost);
  const m = useMutation({
    mutationFn: () => api.connect({ name, team, provider, region, kubeconfig, isHost: offerHost && isHost, ...pipeline }),
    onSuccess: onDone,
  });
  const errors = m.error instanceof ApiError ? m.error.fieldErrors() : {};

  async function upload(file: File | undefined) {
    if (file) setKubeconfig(await file.text());
  }
  function submit(e: FormEvent) {
    e.preventDefault();
    m.mutate();
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Connect Existing">
      <Field label="Name" error={errors.name} help="Lowercase letters, digits and '-', e.g. prod-eu-1" required>
        {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <TeamPicker value={picked} onChange={setPicked} error={errors.team} what="cluster" />
      <div className="row">
        <Field label="Provider" error={errors.provider} required>
          {(p) => (
            <select {...p} name="provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
              <option value="aws">AWS</option><option value="gcp">GCP</option><option value="azure">Azure</option><option value="other">Other</option>
            </select>
          )}
        </Field>
        <Field label="Region" error={errors.region} help="e.g. eu-north-1">
          {(p) => <input {...p} name="region" value={region} onChange={(e) => setRegion(e.target.value)} />}
        </Field>
      </div>
      <Field label="Kubeconfig" error={errors.kubeconfig} help="Paste it, or upload the file below" required>
        {(p) => <textarea {...p} name="kubeconfig" rows={8} spellCheck={false} value={kubeconfig} onChange={(e) => setKubeconfig(e.target.value)} />}
      </Field>
      <Field label="Upload a kubeconfig file">
        {(p) => <input id={p.id} type="file" accept=".yaml,.yml,.conf,text/*,application/octet-stream" onChange={(e) => upload(e.target.files?.[0])} />}
      </Field>
      {offerHost && (
        <Field label="This is the host cluster" error={errors.isHost}
          help="The cluster KubeOpera runs its own control plane on; connecting it as the host completes Get Started">
          {(p) => <input {...p} type="checkbox" name="isHost" checked={isHost} onChange={(e) => setIsHost(e.target.checked)} />}
        </Field>
      )}
      <PipelineFields values={pipeline} errors={errors} onChange={setPipeline} />
      {m.error && <p className="error" role="alert">{m.error.message}</p>}
      <div className="dialog-foot">
        <button type="submit" className="primary" disabled={m.isPending}>{m.isPending ? 'Connecting…' : 'Connect Cluster'}</button>
      </div>
    </form>
  );
}
