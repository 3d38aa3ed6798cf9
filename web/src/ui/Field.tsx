import { useId, type ReactNode } from 'react';

type Props = {
  label: string;
  error?: string;
  help?: string;
  /** A longer explanation, shown on demand. */
  description?: string;
  required?: boolean;
  children: (p: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string; required?: boolean }) => ReactNode;
};

/** A labelled form control with its help text and the server's error. */
export function Field({ label, error, help, description, required, children }: Props) {
  const id = useId();
  const described = [help ? `${id}-help` : '', error ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={error ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{label}{required && <span aria-hidden="true"> *</span>}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': described, required })}
      {help && <p className="help" id={`${id}-help`}>{help}</p>}
      {description && <details className="description"><summary>More about {label.toLowerCase()}</summary><p>{description}</p></details>}
      {error && <p className="field-error" id={`${id}-err`}>{error}</p>}
    </div>
  );
}
