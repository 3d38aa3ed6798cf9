package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
	"github.com/ochestra-tech/kubeopera/server/api"
)

type loginOptions struct {
	contextName, username, token  string
	passwordStdin, sso, noBrowser bool
	ttl                           time.Duration
}

func newLoginCommand() *cobra.Command {
	var o loginOptions
	cmd := &cobra.Command{
		Use:   "login SERVER",
		Short: "Sign in to a KubeOpera server and keep a token for it as a named context",
		Long: "Sign in to the KubeOpera server at SERVER (https://kubeopera.example.com). The password\n" +
			"(prompted for, or the first line of standard input with --password-stdin) is exchanged for\n" +
			"an API token of your role that expires (--ttl); it goes through the same limits as the\n" +
			"dashboard's sign-in (logging in again to a context sends the token it holds, so others'\n" +
			"guesses from your address do not hold you back). With --token, an existing API token is\n" +
			"checked and kept instead. With --sso, you sign in through the server's identity provider in your browser:\n" +
			"the CLI listens on 127.0.0.1 at a random port for the browser's answer, a one-time code it exchanges for the\n" +
			"token (--no-browser prints the URL to open instead of opening it; the browser must run on this machine).\n" +
			"The token is stored with the server's URL in a context of the per-user configuration file\n" +
			"($KUBEOPERA_CONFIG, default ~/.config/kubeopera/config.yaml, mode 0600), which becomes current.",
		Args: needsArg("the server's URL", "https://kubeopera.example.com"),
		RunE: func(cmd *cobra.Command, args []string) error { return login(cmd, args[0], o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.contextName, "context", "", "name of the context to store (default: the server's host)")
	f.StringVarP(&o.username, "username", "u", "", "your username (prompted for when not given)")
	f.BoolVar(&o.passwordStdin, "password-stdin", false, "read the password from the first line of standard input (and a new one from the second, when the server asks for one)")
	f.StringVar(&o.token, "token", "", "keep this API token instead of signing in with a password")
	f.BoolVar(&o.sso, "sso", false, "sign in with the server's single sign-on, in your browser")
	f.BoolVar(&o.noBrowser, "no-browser", false, "with --sso: print the URL to open instead of opening a browser")
	f.DurationVar(&o.ttl, "ttl", 0, "how long the token lasts, such as 168h (default 720h, at most 2160h)")
	return cmd
}

func login(cmd *cobra.Command, server string, o loginOptions) error {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &exitError{code: exitUsage, err: fmt.Errorf("SERVER %q: want a URL such as https://kubeopera.example.com", server)}
	}
	warnIfClear(cmd.ErrOrStderr(), u)
	server = strings.TrimRight(server, "/")
	ctx := cliContext{Name: o.contextName, Server: server}
	if ctx.Name == "" {
		ctx.Name = u.Host
	}
	cfg, path, err := loadConfig()
	if err != nil {
		return err
	}
	if o.sso && (o.token != "" || o.username != "" || o.passwordStdin) {
		return &exitError{code: exitUsage, err: errors.New("--sso signs in through the browser: leave out --token, --username and --password-stdin")}
	}
	if o.sso {
		if err := ssoLogin(cmd, &ctx, o); err != nil {
			return err
		}
	} else if o.token != "" {
		if err := checkToken(cmd, &ctx, o.token); err != nil {
			return err
		}
	} else if err := exchangePassword(cmd, &ctx, o, cfg.tokenFor(ctx)); err != nil {
		return err
	}
	cfg.put(ctx)
	if err := cfg.save(path); err != nil {
		return err
	}
	expiry := "never expires"
	if ctx.ExpiresAt != nil {
		expiry = "expires " + ctx.ExpiresAt.Local().Format(time.RFC3339)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s as %s (context %q; the token %s)\n", server, ctx.Username, ctx.Name, expiry)
	return nil
}

// checkToken asks the server who the token is.
func checkToken(cmd *cobra.Command, ctx *cliContext, token string) error {
	cl, err := newAPIClient(ctx.Server, token)
	if err != nil {
		return err
	}
	resp, err := cl.GetSessionWithResponse(cmd.Context())
	if err := expect(resp, err, http.StatusOK); err != nil {
		return err
	}
	ctx.Token, ctx.Username = token, resp.JSON200.User.Username
	return nil
}

// exchangePassword signs in with a password for a new token. It sends the
// token the context has from an earlier login (known, "" for none) along:
// the server's sign-in limits let the device of an earlier sign-in past
// the attempts of others on the account, say behind the same NAT.
func exchangePassword(cmd *cobra.Command, ctx *cliContext, o loginOptions, known string) error {
	in := bufio.NewReader(cmd.InOrStdin())
	username := o.username
	if username == "" && !o.passwordStdin {
		fmt.Fprint(cmd.ErrOrStderr(), "Username: ")
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the username: %w", err)
		}
		username = strings.TrimSpace(line)
	}
	if username == "" {
		return &exitError{code: exitUsage, err: errors.New("a username is needed: pass --username")}
	}
	password, err := readPassword(cmd, in, o.passwordStdin)
	if err != nil {
		return err
	}
	cl, err := newAPIClient(ctx.Server, known)
	if err != nil {
		return err
	}
	body := apiclient.TokenExchangeRequest{Username: username, Password: password}
	if o.ttl > 0 {
		secs := int(o.ttl.Seconds())
		body.TtlSeconds = &secs
	}
	resp, err := cl.ExchangePasswordForTokenWithResponse(cmd.Context(), body)
	if err == nil && resp.StatusCode() == http.StatusForbidden && problemCode(resp.Body) == api.CodePasswordChangeRequired {
		// A reset, or an account an admin made: the user chooses a new
		// password now, then signs in with it.
		next, cerr := changePassword(cmd, cl, in, o.passwordStdin, username, password)
		switch {
		case errors.Is(cerr, errNoNewPassword):
			// Nothing to set it to: the server's refusal stands (exit 4).
			fmt.Fprintln(cmd.ErrOrStderr(), "with --password-stdin, put the new password on the second line of standard input")
		case cerr != nil:
			return cerr
		default:
			body.Password = next
			resp, err = cl.ExchangePasswordForTokenWithResponse(cmd.Context(), body)
		}
	}
	if err := expect(resp, err, http.StatusCreated); err != nil {
		return err
	}
	t := resp.JSON201
	ctx.Token, ctx.TokenID, ctx.Username, ctx.ExpiresAt = t.Token, t.Id, username, t.ExpiresAt
	return nil
}

// changePassword asks for a new password (twice on a terminal; with
// --password-stdin, the next line of standard input) and sets it with the
// current one; it returns the new password.
func changePassword(cmd *cobra.Command, cl *apiclient.ClientWithResponses, in *bufio.Reader, fromStdin bool, username, current string) (string, error) {
	fmt.Fprintf(cmd.ErrOrStderr(), "%s must choose a new password before signing in.\n", username)
	if fromStdin {
		if _, err := in.Peek(1); err != nil { // no second line
			return "", errNoNewPassword
		}
	}
	next, err := readPasswordAs(cmd, in, fromStdin, "New password: ")
	if err != nil {
		return "", err
	}
	if !fromStdin {
		again, err := readPasswordAs(cmd, in, false, "New password again: ")
		if err != nil {
			return "", err
		}
		if again != next {
			return "", &exitError{code: exitUsage, err: errors.New("the two new passwords differ; nothing was changed")}
		}
	}
	if next == "" {
		return "", errNoNewPassword
	}
	resp, err := cl.ChangeOwnPasswordWithResponse(cmd.Context(), apiclient.PasswordChangeRequest{Username: username, Password: current, NewPassword: next})
	if err := expect(resp, err, http.StatusNoContent); err != nil {
		return "", err
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "new password set")
	return next, nil
}

// errNoNewPassword: the server asked for a new password and none was given.
var errNoNewPassword = errors.New("no new password given")

// problemCode is the code of a problem document, "" when it has none.
func problemCode(body []byte) string {
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(body, &p)
	return p.Code
}

// readPassword reads the first line of standard input with --password-stdin,
// else prompts on the terminal without echo.
func readPassword(cmd *cobra.Command, in *bufio.Reader, fromStdin bool) (string, error) {
	return readPasswordAs(cmd, in, fromStdin, "Password: ")
}

// readPasswordAs is readPassword with prompt.
func readPasswordAs(cmd *cobra.Command, in *bufio.Reader, fromStdin bool, prompt string) (string, error) {
	if fromStdin {
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read the password from standard input: %w", err)
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	f, ok := terminalIn(cmd)
	if !ok {
		return "", &exitError{code: exitUsage, err: errors.New("standard input is not a terminal: pass --password-stdin (or --token)")}
	}
	fmt.Fprint(cmd.ErrOrStderr(), prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(cmd.ErrOrStderr())
	if err != nil {
		return "", fmt.Errorf("read the password: %w", err)
	}
	return string(b), nil
}
