import type { InputField } from '../api/client';
import { DeclaredFields } from '../forms/DeclaredFields';
import { CredentialPicker } from './CredentialPicker';

type Props = {
  /** The team the cluster is made in: its credentials are offered. */
  team: string;
  fields: InputField[];
  values: Record<string, string>;
  errors: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
};

/** The form a provider plugin's input schema describes. */
export function SchemaForm({ team, fields, values, errors, onChange }: Props) {
  return (
    <fieldset>
      <legend>Provider settings</legend>
      <DeclaredFields fields={fields} values={values} errors={errors} errorPrefix="inputs." onChange={onChange}
        credential={(f, v, err, set) => <CredentialPicker team={team} field={f} value={v} error={err} onChange={set} />} />
    </fieldset>
  );
}
