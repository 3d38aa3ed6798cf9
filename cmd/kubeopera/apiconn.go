package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// conn is how an API command reaches a server: --server and --token (or
// their environment variables) when given, else a context of the per-user
// configuration (kubeopera login).
type conn struct {
	contextName, server, token string
	output                     string
}

// apiFlags adds the connection and output flags to an API command group.
func apiFlags(cmd *cobra.Command, c *conn) {
	f := cmd.PersistentFlags()
	f.StringVar(&c.contextName, "context", "", "the login context to use (default: the current one; 'kubeopera context list')")
	f.StringVar(&c.server, "server", os.Getenv("KUBEOPERA_SERVER"), "the server's URL, instead of a login context (env KUBEOPERA_SERVER)")
	f.StringVar(&c.token, "token", os.Getenv("KUBEOPERA_TOKEN"), "an API token, instead of a login context (env KUBEOPERA_TOKEN)")
	f.StringVarP(&c.output, "output", "o", "table", "output format: table, wide, json or yaml")
}

// target is the server URL and token to use.
func (c *conn) target() (server, token string, err error) {
	if c.server != "" && c.token != "" {
		return strings.TrimRight(c.server, "/"), c.token, nil
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return "", "", err
	}
	ctx, err := cfg.context(c.contextName)
	if err != nil {
		return "", "", err
	}
	if ctx.ExpiresAt != nil && time.Now().After(*ctx.ExpiresAt) {
		return "", "", &exitError{code: exitAuth, err: fmt.Errorf("the token of context %q expired at %s: run 'kubeopera login %s' again",
			ctx.Name, ctx.ExpiresAt.Local().Format(time.RFC3339), ctx.Server)}
	}
	return ctx.Server, ctx.Token, nil
}

// client is the generated API client for the target, sending the token.
func (c *conn) client() (*apiclient.ClientWithResponses, error) {
	server, token, err := c.target()
	if err != nil {
		return nil, err
	}
	return newAPIClient(server, token)
}

func newAPIClient(server, token string) (*apiclient.ClientWithResponses, error) {
	cl, err := apiclient.NewClientWithResponses(server, apiclient.WithHTTPClient(&http.Client{Timeout: 60 * time.Second}),
		apiclient.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			req.Header.Set("User-Agent", "kubeopera-cli/"+version)
			return nil
		}))
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("server %q: %w", server, err)}
	}
	return cl, nil
}

// answer is what every generated response has.
type answer interface {
	StatusCode() int
	GetBody() []byte
}

// expect returns nil when the call got one of the wanted statuses, the
// problem as one line with its exit code otherwise, and a transport error
// as it is.
func expect[R answer](r R, err error, want ...int) error {
	if err != nil {
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return &exitError{code: exitUnavailable, err: fmt.Errorf("the server did not answer in time: %w", err)}
		}
		return fmt.Errorf("cannot reach the server: %w", err)
	}
	for _, w := range want {
		if r.StatusCode() == w {
			return nil
		}
	}
	return apiError(r.StatusCode(), r.GetBody())
}
