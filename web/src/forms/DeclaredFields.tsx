import { Fragment, type ComponentProps } from 'react';
import type { InputField } from '../api/client';
import { groupsOf } from './fields';
import { InputControl } from './InputControl';

type Props = {
  fields: InputField[];
  values: Record<string, string>;
  /** The server's field errors, by field name or by prefix + name. */
  errors: Record<string, string>;
  errorPrefix?: string;
  onChange: (v: Record<string, string>) => void;
  credential: ComponentProps<typeof InputControl>['credential'];
};

/** The fields a plugin declares, in its order, each group under its heading. */
export function DeclaredFields({ fields, values, errors, errorPrefix = '', onChange, credential }: Props) {
  const set = (name: string, v: string) => onChange({ ...values, [name]: v });
  return (
    <>
      {groupsOf(fields).map(({ group, fields: fs }) => {
        const controls = fs.map((f) => (
          <InputControl key={f.name} field={f} value={values[f.name] ?? ''} error={errors[errorPrefix + f.name] ?? errors[f.name]}
            onChange={(v) => set(f.name, v)} credential={credential} />
        ));
        return group ? <fieldset key={`g:${group}`} className="group"><legend>{group}</legend>{controls}</fieldset> : <Fragment key="g:">{controls}</Fragment>;
      })}
    </>
  );
}
