import { phases } from './phases';
import { sourceLabel, sources } from './labels';
import type { ClusterFilters } from './queries';

/** Narrows the cluster list; the API does the filtering, page by page. */
export function ClusterFilterBar({ value, teams, onChange }: {
  value: ClusterFilters;
  /** The teams the caller may see; the team filter is offered when there is more than one. */
  teams: string[];
  onChange: (f: ClusterFilters) => void;
}) {
  const set = (k: keyof ClusterFilters) => (e: { target: { value: string } }) => onChange({ ...value, [k]: e.target.value });
  return (
    <form className="filters" role="search" aria-label="Filter clusters" onSubmit={(e) => e.preventDefault()}>
      {(teams.length > 1 || value.team) && (
        <label>Team
          <select name="team" value={value.team ?? ''} onChange={set('team')}>
            <option value="">Any</option>
            {value.team && !teams.includes(value.team) && <option value={value.team}>{value.team}</option>}
            {teams.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
      )}
      <label>Name starts with
        <input type="search" name="namePrefix" value={value.namePrefix ?? ''} onChange={set('namePrefix')} />
      </label>
      <label>Phase
        <select name="phase" value={value.phase ?? ''} onChange={set('phase')}>
          <option value="">Any</option>
          {phases.map((p) => <option key={p} value={p}>{p}</option>)}
        </select>
      </label>
      <label>Provider
        <input name="provider" value={value.provider ?? ''} onChange={set('provider')} placeholder="e.g. aws" />
      </label>
      <label>Source
        <select name="source" value={value.source ?? ''} onChange={set('source')}>
          <option value="">Any</option>
          {sources.map((s) => <option key={s} value={s}>{sourceLabel(s)}</option>)}
        </select>
      </label>
    </form>
  );
}

export function hasFilters(f: ClusterFilters): boolean {
  return Object.values(f).some((v) => v);
}
