import type { InputField } from '../api/client';
import { Field } from '../ui/Field';
import { CredentialPicker } from './CredentialPicker';

type Props = {
  fields: InputField[];
  values: Record<string, string>;
  errors: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
};

/** A label from a field name: instanceType → Instance type. */
function labelOf(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The form a provider plugin's input schema describes. */
export function SchemaForm({ fields, values, errors, onChange }: Props) {
  const set = (name: string, v: string) => onChange({ ...values, [name]: v });
  return (
    <fieldset>
      <legend>Provider settings</legend>
      {fields.map((f) => {
        const name = f.name;
        const error = errors[`inputs.${name}`] ?? errors[name];
        const value = values[name] ?? '';
        if (name === 'credentialRef') {
          return <CredentialPicker key={name} value={value} error={error} onChange={(v) => set(name, v)} />;
        }
        return (
          <Field key={name} label={labelOf(name)} error={error} help={f.help} required={f.required}>
            {(p) =>
              f.allowed?.length ? (
                <select {...p} name={name} value={value} onChange={(e) => set(name, e.target.value)}>
                  {!f.required && <option value="">—</option>}
                  {f.allowed.map((a) => <option key={a} value={a}>{a}</option>)}
                </select>
              ) : f.type === 'bool' ? (
                <input {...p} type="checkbox" name={name} checked={value === 'true'} onChange={(e) => set(name, String(e.target.checked))} />
              ) : (
                <input {...p} name={name} type={f.secret ? 'password' : f.type === 'int' ? 'number' : 'text'}
                  inputMode={f.type === 'int' ? 'numeric' : undefined} value={value} onChange={(e) => set(name, e.target.value)} />
              )
            }
          </Field>
        );
      })}
    </fieldset>
  );
}

/** The schema's defaults, as the form's starting values. */
export function defaultsOf(fields: InputField[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) if (f.name) out[f.name] = f.default ?? '';
  return out;
}
