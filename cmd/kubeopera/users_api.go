package main

import (
	"context"
	"net/http"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// userAdmin is what the users commands do, through the API (apiUsers) or,
// as the break-glass path, on the server's database (localUsers).
type userAdmin interface {
	list(ctx context.Context) ([]apiclient.User, error)
	create(ctx context.Context, username, email, role, password string) (apiclient.User, string, error)
	setDisabled(ctx context.Context, id string, disabled bool) error
	remove(ctx context.Context, id string) error
	resetPassword(ctx context.Context, id string) (string, error)
	endSessions(ctx context.Context, id string) (apiclient.AccessEnded, error)
	tokens(ctx context.Context, id string) ([]apiclient.Token, error)
	revokeToken(ctx context.Context, id, tokenID string) error
}

// apiUsers is userAdmin through the API as the logged-in platform admin.
type apiUsers struct {
	cl *apiclient.ClientWithResponses
}

func (a apiUsers) list(ctx context.Context) ([]apiclient.User, error) {
	resp, err := a.cl.ListUsersWithResponse(ctx)
	if err := expect(resp, err, http.StatusOK); err != nil {
		return nil, err
	}
	return resp.JSON200.Items, nil
}

func (a apiUsers) create(ctx context.Context, username, email, role, password string) (apiclient.User, string, error) {
	body := apiclient.UserCreateRequest{Username: username, Email: email, Role: apiclient.UserCreateRequestRole(role)}
	if password != "" {
		body.Password = &password
	}
	resp, err := a.cl.CreateUserWithResponse(ctx, body)
	if err := expect(resp, err, http.StatusCreated); err != nil {
		return apiclient.User{}, "", err
	}
	return resp.JSON201.User, deref(resp.JSON201.GeneratedPassword), nil
}

func (a apiUsers) setDisabled(ctx context.Context, id string, disabled bool) error {
	if disabled {
		resp, err := a.cl.DisableUserWithResponse(ctx, id)
		return expect(resp, err, http.StatusOK)
	}
	resp, err := a.cl.EnableUserWithResponse(ctx, id)
	return expect(resp, err, http.StatusOK)
}

func (a apiUsers) remove(ctx context.Context, id string) error {
	resp, err := a.cl.DeleteUserWithResponse(ctx, id)
	return expect(resp, err, http.StatusNoContent)
}

func (a apiUsers) resetPassword(ctx context.Context, id string) (string, error) {
	resp, err := a.cl.ResetUserPasswordWithResponse(ctx, id)
	if err := expect(resp, err, http.StatusOK); err != nil {
		return "", err
	}
	return deref(resp.JSON200.GeneratedPassword), nil
}

func (a apiUsers) endSessions(ctx context.Context, id string) (apiclient.AccessEnded, error) {
	resp, err := a.cl.EndUserSessionsWithResponse(ctx, id)
	if err := expect(resp, err, http.StatusOK); err != nil {
		return apiclient.AccessEnded{}, err
	}
	return *resp.JSON200, nil
}

func (a apiUsers) tokens(ctx context.Context, id string) ([]apiclient.Token, error) {
	resp, err := a.cl.ListUserTokensWithResponse(ctx, id)
	if err := expect(resp, err, http.StatusOK); err != nil {
		return nil, err
	}
	return resp.JSON200.Items, nil
}

func (a apiUsers) revokeToken(ctx context.Context, id, tokenID string) error {
	resp, err := a.cl.RevokeUserTokenWithResponse(ctx, id, tokenID)
	return expect(resp, err, http.StatusNoContent)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
