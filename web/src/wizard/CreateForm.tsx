import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useProviders } from '../credentials/queries';
import { api, ApiError, type Provider } from '../api/client';
import { Field } from '../ui/Field';
import { TeamPicker, useChosenTeam } from '../teams/TeamPicker';
import { ErrorState, Loading } from '../ui/states';
import { emptyPipeline, PipelineFields } from './PipelineFields';
import { defaultsOf, withoutCredentials } from '../forms/fields';
import { SchemaForm } from './SchemaForm';
import { CostEstimate } from './CostEstimate';
import { useEstimate } from './useEstimate';
import { topologyLabel } from './topology';

export function CreateForm({ onDone }: { onDone: () => void }) {
  const q = useProviders();
  const [chosen, setChosen] = useState<Provider | null>(null);
  const [topology, setTopology] = useState('');
  const [name, setName] = useState('');
  const [picked, setPicked] = useState('');
  const team = useChosenTeam(picked);
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [pipeline, setPipeline] = useState(emptyPipeline);
  const m = useMutation({
    mutationFn: () => api.provision({ name, team, provider: chosen?.name ?? '', topology, inputs, ...pipeline }),
    onSuccess: onDone,
  });
  const errors = m.error instanceof ApiError ? m.error.fieldErrors() : {};
  const estimate = useEstimate(chosen, inputs);

  if (q.isPending) return <Loading what="providers" />;
  if (q.isError) return <ErrorState title="The providers could not be loaded." error={q.error} onRetry={() => q.refetch()} />;
  const providers = q.data.items;

  function choose(p: Provider) {
    setChosen(p);
    setTopology(p.topologies[0] ?? '');
    setInputs(defaultsOf(p.schema));
  }
  function submit(e: FormEvent) {
    e.preventDefault();
    m.mutate();
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Create New">
      <fieldset>
        <legend>Provider</legend>
        {providers.length === 0 && <p className="muted">No provider plugins are installed on this server.</p>}
        <div className="providers" role="radiogroup" aria-label="Provider">
          {providers.map((p) => {
            const soon = p.availability === 'SOON';
            return (
              <label key={p.name} className={`provider ${soon ? 'soon' : ''} ${chosen?.name === p.name ? 'chosen' : ''}`}>
                <input type="radio" name="provider" value={p.name} disabled={soon} checked={chosen?.name === p.name}
                  onChange={() => choose(p)} />
                <span className="provider-body">
                  <span>{p.displayName || p.name}</span>
                  <span className="muted">{p.cloud}</span>
                  {soon && <span className="badge gray">Soon</span>}
                </span>
              </label>
            );
          })}
        </div>
        {errors.provider && <p className="field-error">{errors.provider}</p>}
      </fieldset>
      {chosen && (
        <>
          <Field label="Name" error={errors.name} help="Lowercase letters, digits and '-', e.g. prod-eu-1" required>
            {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <TeamPicker value={picked} error={errors.team} what="cluster"
            onChange={(t) => { setPicked(t); setInputs((v) => withoutCredentials(chosen.schema, v)); }} />
          {chosen.topologies.length > 0 && (
            <Field label="Topology" error={errors.topology}>
              {(p) => (
                <select {...p} name="topology" value={topology} onChange={(e) => setTopology(e.target.value)}>
                  {chosen.topologies.map((t) => <option key={t} value={t}>{topologyLabel(t)}</option>)}
                </select>
              )}
            </Field>
          )}
          <SchemaForm team={team} fields={chosen.schema} values={inputs} errors={errors} onChange={setInputs} />
          <CostEstimate {...estimate} />
          <PipelineFields values={pipeline} errors={errors} onChange={setPipeline} />
        </>
      )}
      {m.error && <p className="error" role="alert">{m.error.message}</p>}
      <div className="dialog-foot">
        <button type="submit" className="primary" disabled={!chosen || m.isPending}>{m.isPending ? 'Creating…' : 'Create Cluster'}</button>
      </div>
    </form>
  );
}
