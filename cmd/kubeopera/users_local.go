package main

import (
	"context"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// localUsers is userAdmin on the server's database: the break-glass path
// for an installation nobody can sign in to. It obeys the last-admin rule
// (the store's) but not the super-admin one: whoever runs it owns the
// machine. Each change is audited as the operating-system user, in the
// change's transaction.
type localUsers struct {
	st  *store.Store
	cmd *cobra.Command
}

func (l localUsers) audit(status int) *store.AuditEvent { return cliAuditEvent(l.cmd, "", status) }

func (l localUsers) list(ctx context.Context) ([]apiclient.User, error) {
	rows, err := l.st.ListUsers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]apiclient.User, 0, len(rows))
	for _, u := range rows {
		out = append(out, userRow(u))
	}
	return out, nil
}

func userRow(u store.User) apiclient.User {
	return apiclient.User{Id: u.ID, Username: u.Username, Email: u.Email, Role: apiclient.UserRole(u.Role), SuperAdmin: u.SuperAdmin,
		Disabled: u.DisabledAt != nil, DisabledAt: u.DisabledAt, MustChangePassword: u.MustChangePassword, CreatedAt: u.CreatedAt}
}

func (l localUsers) create(ctx context.Context, username, email, role, password string) (apiclient.User, string, error) {
	generated := ""
	if password == "" {
		password = generatePassword()
		generated = password
	}
	u, err := api.NewUser(username, email, password, api.Role(role))
	if err != nil {
		return apiclient.User{}, "", &exitError{code: exitInvalid, err: err}
	}
	if err := l.st.CreateUser(ctx, u, l.audit(http.StatusCreated)); err != nil {
		return apiclient.User{}, "", err
	}
	return userRow(*u), generated, nil
}

func (l localUsers) setDisabled(ctx context.Context, id string, disabled bool) error {
	return l.st.SetUserDisabled(ctx, id, disabled, l.audit(http.StatusOK))
}

func (l localUsers) remove(ctx context.Context, id string) error {
	return l.st.DeleteUser(ctx, id, l.audit(http.StatusNoContent))
}

func (l localUsers) resetPassword(ctx context.Context, id string) (string, error) {
	password := generatePassword()
	hash, err := api.HashPassword(password)
	if err != nil {
		return "", err
	}
	return password, l.st.ResetPassword(ctx, id, hash, l.audit(http.StatusOK))
}

func (l localUsers) endSessions(ctx context.Context, id string) (apiclient.AccessEnded, error) {
	s, t, err := l.st.EndUserSessions(ctx, id, l.audit(http.StatusOK))
	return apiclient.AccessEnded{SessionsEnded: s, TokensRevoked: t}, err
}

func (l localUsers) tokens(ctx context.Context, id string) ([]apiclient.Token, error) {
	rows, err := l.st.ListUserTokens(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]apiclient.Token, 0, len(rows))
	for _, t := range rows {
		out = append(out, apiclient.Token{Id: t.ID, Name: t.Name, Role: apiclient.TokenRole(t.Role), CreatedAt: t.CreatedAt,
			LastUsedAt: t.LastUsedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt, Active: t.Active(time.Now())})
	}
	return out, nil
}

func (l localUsers) revokeToken(ctx context.Context, id, tokenID string) error {
	_, err := l.st.RevokeToken(ctx, tokenID, id, l.audit(http.StatusNoContent))
	return err
}
