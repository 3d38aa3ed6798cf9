package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// viaDatabase tells a tokens or audit command to use the server's database
// directly (bootstrapping, on the server's machine): --data-dir or
// --database given, or their environment variables set. Otherwise it goes
// through the API as the logged-in admin.
func viaDatabase(cmd *cobra.Command) bool {
	return cmd.Flags().Changed("data-dir") || cmd.Flags().Changed("database") ||
		os.Getenv("KUBEOPERA_DATA_DIR") != "" || os.Getenv("KUBEOPERA_DATABASE_URL") != ""
}

func apiTokensCreate(cmd *cobra.Command, c *conn, name, role string, ttl time.Duration) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	body := apiclient.TokenCreateRequest{Name: name, Role: apiclient.TokenCreateRequestRole(role)}
	if ttl > 0 {
		secs := int(ttl.Seconds())
		body.TtlSeconds = &secs
	}
	resp, err := cl.CreateTokenWithResponse(cmd.Context(), body)
	if err := expect(resp, err, http.StatusCreated); err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), resp.JSON201.Token)
	fmt.Fprintf(cmd.ErrOrStderr(), "created %s token %q; it is shown only this once\n", role, name)
	return nil
}

func apiTokens(cmd *cobra.Command, c *conn) ([]apiclient.Token, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	resp, err := cl.ListTokensWithResponse(cmd.Context())
	if err := expect(resp, err, http.StatusOK); err != nil {
		return nil, err
	}
	return resp.JSON200.Items, nil
}

func apiTokensList(cmd *cobra.Command, c *conn) error {
	items, err := apiTokens(cmd, c)
	if err != nil {
		return err
	}
	return emit(cmd.OutOrStdout(), c.output, items, func(w *tabwriter.Writer, _ bool) {
		fmt.Fprintln(w, "ID\tNAME\tROLE\tCREATED\tLAST USED\tEXPIRES\tSTATE")
		for _, t := range items {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Id, t.Name, t.Role, stamp(&t.CreatedAt), stamp(t.LastUsedAt), stamp(t.ExpiresAt), tokenState(t))
		}
	})
}

// tokenState is a listed token's state: active, expired or revoked when.
func tokenState(t apiclient.Token) string {
	switch {
	case t.RevokedAt != nil:
		return "revoked " + stamp(t.RevokedAt)
	case !t.Active:
		return "expired"
	}
	return "active"
}

// tokenRef is what resolveToken knows of a token.
type tokenRef struct {
	ID, Name string
	Active   bool
}

// resolveToken returns the ID of the token ref names: the token with that
// ID, or else the one active token with that name. A name several active
// tokens share is refused, never guessed: the server revokes by ID only.
func resolveToken(tokens []tokenRef, ref string) (tokenRef, error) {
	var named []tokenRef
	for _, t := range tokens {
		if t.ID == ref {
			return t, nil
		}
		if t.Name == ref && t.Active {
			named = append(named, t)
		}
	}
	switch len(named) {
	case 0:
		return tokenRef{}, &exitError{code: exitNotFound, err: fmt.Errorf("no active token named %q or with that ID ('kubeopera tokens list')", ref)}
	case 1:
		return named[0], nil
	}
	return tokenRef{}, &exitError{code: exitUsage, err: fmt.Errorf("%d active tokens are named %q: revoke one by its ID (see 'kubeopera tokens list')", len(named), ref)}
}

// apiTokensRevoke revokes the token with ID ref, or the one active token
// named ref.
func apiTokensRevoke(cmd *cobra.Command, c *conn, ref string) error {
	items, err := apiTokens(cmd, c)
	if err != nil {
		return err
	}
	refs := make([]tokenRef, 0, len(items))
	roles := map[string]string{}
	for _, t := range items {
		refs = append(refs, tokenRef{ID: t.Id, Name: t.Name, Active: t.Active})
		roles[t.Id] = string(t.Role)
	}
	found, err := resolveToken(refs, ref)
	if err != nil {
		return err
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	resp, err := cl.RevokeTokenWithResponse(cmd.Context(), found.ID)
	if err := expect(resp, err, http.StatusNoContent); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "revoked %s token %q (%s)\n", roles[found.ID], found.Name, found.ID)
	return nil
}

func apiAudit(cmd *cobra.Command, c *conn, actor, target string, limit int) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	p := apiclient.ListAuditEventsParams{Limit: &limit, Actor: optional(actor), Target: optional(target)}
	resp, err := cl.ListAuditEventsWithResponse(cmd.Context(), &p)
	if err := expect(resp, err, http.StatusOK); err != nil {
		return err
	}
	items := resp.JSON200.Items
	return emit(cmd.OutOrStdout(), c.output, items, func(w *tabwriter.Writer, _ bool) {
		fmt.Fprintln(w, "TIME\tACTOR\tREQUEST\tTARGET\tSTATUS\tREQUEST ID")
		for _, e := range items {
			fmt.Fprintf(w, "%s\t%s\t%s %s\t%s\t%s\t%s\n", e.At.UTC().Format("2006-01-02 15:04:05Z"), orDash(e.Actor),
				e.Method, e.Route, orDash(e.Target), strconv.Itoa(e.Status), e.RequestId)
		}
	})
}
