package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
	"github.com/ochestra-tech/kubeopera/server/oidc"
)

// ssoTimeout bounds how long `login --sso` waits for the browser.
const ssoTimeout = 5 * time.Minute

// openBrowser opens u in the user's browser without waiting for it.
var openBrowser = func(u string) error {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", u)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		c = exec.Command("xdg-open", u)
	}
	if err := c.Start(); err != nil {
		return err
	}
	go func() { _ = c.Wait() }()
	return nil
}

// ssoResult is what the browser brought back to the loopback listener.
type ssoResult struct {
	code string
	err  error
}

// ssoLogin signs in through the browser (RFC 8252's loopback redirect):
// it listens on 127.0.0.1 at a random port, sends the browser to the
// server's CLI sign-in with the S256 challenge of a verifier it keeps,
// and exchanges the code the sign-in brings back, with the verifier, for
// a login token.
func ssoLogin(cmd *cobra.Command, ctx *cliContext, o loginOptions) error {
	verifier, state := randomString(32), randomString(24)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on loopback for the browser's answer: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	results := make(chan ssoResult, 1)
	srv := &http.Server{Handler: loopbackHandler(state, results), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	q := url.Values{"redirect_uri": {redirect}, "code_challenge": {oidc.Challenge(verifier)}, "state": {state}}
	start := ctx.Server + oidc.CLILoginPath + "?" + q.Encode()
	stderr := cmd.ErrOrStderr()
	if o.noBrowser {
		fmt.Fprintf(stderr, "Open this URL in a browser on this machine to sign in:\n\n  %s\n\n", start)
	} else if err := openBrowser(start); err != nil {
		fmt.Fprintf(stderr, "Could not open a browser (%v); open this URL on this machine to sign in:\n\n  %s\n\n", err, start)
	} else {
		fmt.Fprintf(stderr, "Signing in through your browser; if it did not open, visit:\n\n  %s\n\n", start)
	}
	wait, cancel := context.WithTimeout(cmd.Context(), ssoTimeout)
	defer cancel()
	var got ssoResult
	select {
	case got = <-results:
	case <-wait.Done():
		return &exitError{code: exitAuth, err: fmt.Errorf("no answer from the browser within %s: run 'kubeopera login --sso %s' again", ssoTimeout, ctx.Server)}
	}
	if got.err != nil {
		return &exitError{code: exitAuth, err: got.err}
	}
	return exchangeCode(cmd, ctx, got.code, verifier, o.ttl)
}

// exchangeCode trades the sign-in's code and the verifier for a login
// token.
func exchangeCode(cmd *cobra.Command, ctx *cliContext, code, verifier string, ttl time.Duration) error {
	cl, err := newAPIClient(ctx.Server, "")
	if err != nil {
		return err
	}
	body := apiclient.CLITokenRequest{Code: code, CodeVerifier: verifier}
	if ttl > 0 {
		secs := int(ttl.Seconds())
		body.TtlSeconds = &secs
	}
	resp, err := cl.ExchangeCLISignInCodeWithResponse(cmd.Context(), body)
	if err := expect(resp, err, http.StatusCreated); err != nil {
		return err
	}
	t := resp.JSON201
	ctx.Token, ctx.TokenID, ctx.ExpiresAt = t.Token, t.Id, t.ExpiresAt
	ctx.Username = strings.TrimPrefix(t.Name, "login:")
	return nil
}

var loopbackPage = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>KubeOpera sign-in</title></head>
<body><main><h1>{{.Title}}</h1><p>{{.Text}}</p></main></body></html>`))

// loopbackHandler answers the browser's redirect: a request with the
// CLI's state ends the wait with its code or error; any other is refused
// and the wait goes on, so a page that guesses the port cannot end it.
func loopbackHandler(state string, results chan<- ssoResult) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if q.Get("state") != state {
			w.WriteHeader(http.StatusBadRequest)
			_ = loopbackPage.Execute(w, map[string]string{"Title": "Not this sign-in",
				"Text": "This answer does not belong to the sign-in the terminal is waiting for. Start again from the terminal."})
			return
		}
		res := ssoResult{code: q.Get("code")}
		page := map[string]string{"Title": "Signed in to KubeOpera", "Text": "You can close this tab and go back to the terminal."}
		if msg := q.Get("error"); msg != "" || res.code == "" {
			if msg == "" {
				msg = "the server sent no code"
			}
			res = ssoResult{err: fmt.Errorf("single sign-on failed: %s", msg)}
			w.WriteHeader(http.StatusForbidden)
			page = map[string]string{"Title": "Sign-in failed", "Text": msg}
		}
		_ = loopbackPage.Execute(w, page)
		select {
		case results <- res:
		default: // an answer came already
		}
	})
	return mux
}

func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("no randomness: " + err.Error()))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
