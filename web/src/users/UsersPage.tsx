import { useState } from 'react';
import { Empty, ErrorState, Loading } from '../ui/states';
import { AddUser } from './AddUser';
import { useUsers } from './queries';
import { UserRow } from './UserRow';

/** A generated password, shown this once. */
function OneTimePassword({ shown }: { shown: { username: string; password: string } }) {
  return (
    <div className="panel" role="status">
      <p>The password of <strong>{shown.username}</strong>, shown only this once:</p>
      <p><code className="one-time-password" data-testid="one-time-password">{shown.password}</code></p>
      <p className="muted">Hand it over safely; they choose a new one at their next sign-in.</p>
    </div>
  );
}

export function UsersPage() {
  const q = useUsers();
  const [shown, setShown] = useState<{ username: string; password: string }>();
  const onPassword = (username: string, password: string) => setShown({ username, password });
  return (
    <>
      <div className="page-head"><h1>Users</h1></div>
      {shown && <OneTimePassword shown={shown} />}
      <section className="panel" aria-labelledby="users-title">
        <h2 id="users-title">People who sign in</h2>
        {q.isPending ? <Loading what="users" />
          : q.isError ? <ErrorState title="The users could not be loaded." error={q.error} onRetry={() => q.refetch()} />
          : q.data.items.length === 0 ? <Empty>No users yet.</Empty>
          : (
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Users</caption>
                <thead><tr><th scope="col">Username</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">State</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
                <tbody>{q.data.items.map((u) => <UserRow key={u.id} u={u} onPassword={onPassword} />)}</tbody>
              </table>
            </div>
          )}
      </section>
      <AddUser onPassword={onPassword} />
    </>
  );
}
