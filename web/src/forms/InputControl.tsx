import type { ReactNode } from 'react';
import type { InputField } from '../api/client';
import { Field } from '../ui/Field';
import { boundsOf, controlOf, helpOf, labelOf } from './fields';

type Props = {
  field: InputField;
  value: string;
  error?: string;
  onChange: (v: string) => void;
  /** Renders a field of type credential (a picker of stored credentials). */
  credential: (f: InputField, value: string, error: string | undefined, onChange: (v: string) => void) => ReactNode;
};

/** One declared field, with the control its type and presentation ask for. */
export function InputControl({ field: f, value, error, onChange, credential }: Props) {
  const control = controlOf(f);
  if (control === 'credential') return <>{credential(f, value, error, onChange)}</>;
  return (
    <Field label={labelOf(f)} error={error} help={helpOf(f)} description={f.description} required={f.required}>
      {(p) =>
        control === 'select' ? (
          <select {...p} name={f.name} value={value} onChange={(e) => onChange(e.target.value)}>
            {!f.required && <option value="">—</option>}
            {f.allowed!.map((a) => <option key={a} value={a}>{a}</option>)}
          </select>
        ) : control === 'checkbox' ? (
          <input {...p} type="checkbox" name={f.name} checked={value === 'true'} onChange={(e) => onChange(String(e.target.checked))} />
        ) : control === 'textarea' ? (
          <textarea {...p} name={f.name} rows={6} spellCheck={false} autoComplete="off" value={value} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input {...p} name={f.name} type={control} {...boundsOf(f)} inputMode={control === 'number' ? 'numeric' : undefined}
            autoComplete={f.secret ? 'off' : undefined} value={value} onChange={(e) => onChange(e.target.value)} />
        )
      }
    </Field>
  );
}
