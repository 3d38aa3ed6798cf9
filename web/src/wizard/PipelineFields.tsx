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

type Props = { values: PipelineValues; errors: Record<string, string>; onChange: (v: PipelineValues) => void };

/** Domain, GitOps and optional first-admin fields, shared by both paths. */
export function PipelineFields({ values, errors, onChange }: Props) {
  const text = (key: keyof PipelineValues, label: string, help?: string, required?: boolean, type = 'text') => (
    <Field label={label} error={errors[key]} help={help} required={required}>
      {(p) => <input {...p} type={type} name={key} value={values[key]} onChange={(e) => onChange({ ...values, [key]: e.target.value })} />}
    </Field>
  );
  return (
    <>
      <fieldset>
        <legend>Domain and GitOps</legend>
        {text('domain', 'Domain', 'KubeOpera\'s services are published under it, e.g. my-cluster.acme.com', true)}
        {text('gitOpsRepoURL', 'GitOps repository URL', 'https:// or ssh:// URL the GitOps tree is pushed to', true)}
        {text('gitOpsPath', 'GitOps path', 'e.g. fluxcd/clusters/my-cluster')}
        {text('gitCredentialsSecretRef', 'Git credentials Secret', 'Secret on the management cluster with the repository credentials')}
        {text('registryPullSecretRef', 'Registry pull Secret (optional)', 'In place of the platform default')}
      </fieldset>
      <fieldset>
        <legend>First admin (optional)</legend>
        {text('adminEmail', 'Admin email', 'Set both or neither', false, 'email')}
        {text('adminUsername', 'Admin username')}
      </fieldset>
    </>
  );
}
