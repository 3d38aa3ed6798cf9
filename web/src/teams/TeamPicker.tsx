import { Field } from '../ui/Field';
import { useTeamsToMakeIn } from './queries';
import { chosenTeam } from './roles';

type Props = {
  /** What the user picked ("" for none yet); the form sends chosenTeam(value, offered). */
  value: string;
  onChange: (team: string) => void;
  error?: string;
  /** What is being made, for the help text: "cluster", "credential". */
  what: string;
};

/**
 * The team that will own a new cluster or credential: among the teams the
 * caller administers (all for a platform admin). Left out when there is
 * only one choice; the form then sends that one.
 */
export function TeamPicker({ value, onChange, error, what }: Props) {
  const { teams } = useTeamsToMakeIn();
  if (teams.length <= 1) return null;
  return (
    <Field label="Team" error={error} help={`The team that owns the ${what}: its members get their team role on it`} required>
      {(p) => (
        <select {...p} name="team" value={chosenTeam(value, teams)} onChange={(e) => onChange(e.target.value)}>
          {teams.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
      )}
    </Field>
  );
}

/** The team a form sends for what the user picked ("" for none yet). */
export function useChosenTeam(picked: string): string {
  const { teams } = useTeamsToMakeIn();
  return chosenTeam(picked, teams);
}
