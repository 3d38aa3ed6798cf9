import { useEffect, useState } from 'react';
import { Field } from '../ui/Field';

export type PipelineValues = {
  domain: string;
  gitOpsRepoURL: string;
  gitOpsPath: string;
  gitCredentialsSecretRef: string;
  registryPullSecretRef: string;
  adminEmail: string;
  adminUsername: string;
};

export const emptyPipeline: PipelineValues = {
  domain: '', gitOpsRepoURL: '', gitOpsPath: '', gitCredentialsSecretRef: '', registryPullSecretRef: '', adminEmail: '', adminUsername: '',
};

const fields = Object.keys(emptyPipeline) as (keyof PipelineValues)[];

type Props = { values: PipelineValues; errors: Record<string, string>; onChange: (v: PipelineValues) => void };

/**
 * Domain, GitOps and optional first-admin fields, shared by both paths,
 * under "Advanced": the server fills what is left empty from its platform
 * defaults. It opens by itself when the server refuses one of them (no
 * default configured, or a bad value).
 */
export function PipelineFields({ values, errors, onChange }: Props) {
  const [open, setOpen] = useState(false);
  const refused = fields.some((k) => errors[k]);
  useEffect(() => { if (refused) setOpen(true); }, [refused]);
  const text = (key: keyof PipelineValues, label: string, help?: string, type = 'text') => (
    <Field label={label} error={errors[key]} help={help}>
      {(p) => <input {...p} type={type} name={key} value={values[key]} onChange={(e) => onChange({ ...values, [key]: e.target.value })} />}
    </Field>
  );
  return (
    <details className="advanced" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Advanced: domain, GitOps repository, first admin</summary>
      <p className="help">Left empty, each takes the platform default the server is configured with, if any.</p>
      <fieldset>
        <legend>Domain and GitOps</legend>
        {text('domain', 'Domain', 'KubeOpera\'s services are published under it, e.g. my-cluster.acme.com')}
        {text('gitOpsRepoURL', 'GitOps repository URL', 'https:// or ssh:// URL the GitOps tree is pushed to')}
        {text('gitOpsPath', 'GitOps path', 'e.g. fluxcd/clusters/my-cluster')}
        {text('gitCredentialsSecretRef', 'Git credentials Secret', 'Secret on the management cluster with the repository credentials')}
        {text('registryPullSecretRef', 'Registry pull Secret', 'In place of the platform default')}
      </fieldset>
      <fieldset>
        <legend>First admin (optional)</legend>
        {text('adminEmail', 'Admin email', 'Set both or neither', 'email')}
        {text('adminUsername', 'Admin username')}
      </fieldset>
    </details>
  );
}
