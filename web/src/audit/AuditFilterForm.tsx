import { useState, type FormEvent } from 'react';
import { Field } from '../ui/Field';
import { filterProblems, noFilters, type AuditFilters } from './filters';

/** Narrows the audit log; the API filters, the form only sends what is typed once it is applied. */
export function AuditFilterForm({ value, onApply }: { value: AuditFilters; onApply: (f: AuditFilters) => void }) {
  const [draft, setDraft] = useState(value);
  const [shown, setShown] = useState<ReturnType<typeof filterProblems>>({});
  const set = (k: keyof AuditFilters) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problems = filterProblems(draft);
    setShown(problems);
    if (Object.keys(problems).length === 0) onApply(draft);
  };
  const clear = () => { setDraft(noFilters); setShown({}); onApply(noFilters); };
  return (
    <form className="panel" role="search" aria-label="Filter the audit log" onSubmit={submit} noValidate>
      <div className="row">
        <Field label="Actor" help="A user's or token's name, exactly">
          {(p) => <input {...p} name="actor" value={draft.actor} onChange={set('actor')} autoComplete="off" />}
        </Field>
        <Field label="Target" help="The ID acted on">
          {(p) => <input {...p} name="target" value={draft.target} onChange={set('target')} autoComplete="off" />}
        </Field>
        <Field label="From" help="At or after, your time" error={shown.since}>
          {(p) => <input {...p} type="datetime-local" name="since" value={draft.since} onChange={set('since')} />}
        </Field>
        <Field label="To" help="Before, your time" error={shown.until}>
          {(p) => <input {...p} type="datetime-local" name="until" value={draft.until} onChange={set('until')} />}
        </Field>
      </div>
      <div className="row-actions">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={clear}>Clear</button>
      </div>
    </form>
  );
}
