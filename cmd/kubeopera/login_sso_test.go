package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testoidc"
	"github.com/ochestra-tech/kubeopera/server/oidc"
)

// startSSOServer runs `kubeopera server` with single sign-on at a real
// OpenID Provider on loopback, whose user ada (group platform) is a
// platform admin; its login page asks for the username.
func startSSOServer(t *testing.T) (string, *testoidc.Provider) {
	t.Helper()
	idp := testoidc.New(t)
	idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"platform"}})
	secret := filepath.Join(t.TempDir(), "client-secret")
	if err := os.WriteFile(secret, []byte("client-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	server := startCLIServerArgs(t, t.TempDir(), []string{"--kubeconfig", "", "--self-kubeconfig", "",
		"--oidc-issuer-url", idp.URL, "--oidc-client-id", "kubeopera", "--oidc-client-secret-file", secret,
		"--oidc-group-mappings", `[{"group":"platform","role":"platform-admin"}]`})
	idp.AddClient(testoidc.Client{ID: "kubeopera", Secret: "client-secret", RedirectURIs: []string{server + oidc.CallbackPath}})
	return server, idp
}

var formID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// browse is the browser's part: it opens start, fills the provider's
// login form with username, and follows the redirects to the CLI's
// loopback; it returns the loopback page's status and text.
func browse(t *testing.T, idp *testoidc.Provider, start, username string) (int, string) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(start)
	if err != nil {
		t.Errorf("open %s: %v", start, err)
		return 0, ""
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := formID.FindSubmatch(page)
	if m == nil {
		t.Errorf("the provider showed no login form: %d %s", resp.StatusCode, page)
		return 0, ""
	}
	resp, err = c.PostForm(idp.URL+"/login", url.Values{"id": {string(m[1])}, "username": {username}})
	if err != nil {
		t.Errorf("submit the login form: %v", err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// `kubeopera login --sso`: the browser signs in at the real provider's
// form, lands on the CLI's loopback listener, and the CLI keeps a login
// token of the user's role that the API takes.
func TestLoginSSOThroughTheBrowser(t *testing.T) {
	server, idp := startSSOServer(t)
	t.Setenv("KUBEOPERA_CONFIG", filepath.Join(t.TempDir(), "kubeopera", "config.yaml"))
	t.Setenv("KUBEOPERA_SERVER", "")
	t.Setenv("KUBEOPERA_TOKEN", "")
	landed := make(chan string, 1)
	orig := openBrowser
	t.Cleanup(func() { openBrowser = orig })
	openBrowser = func(start string) error {
		go func() {
			status, page := browse(t, idp, start, "ada")
			if status != http.StatusOK || !strings.Contains(page, "Signed in to KubeOpera") {
				t.Errorf("the browser's last page: %d %s", status, page)
			}
			landed <- start
		}()
		return nil
	}
	out, err := runCLI(t, "", "login", server, "--sso", "--context", "sso", "--ttl", "1h")
	if err != nil || !strings.Contains(out, `logged in to `+server+` as ada (context "sso"`) {
		t.Fatalf("login --sso: %v\n%s", err, out)
	}
	if start := <-landed; !strings.Contains(start, "redirect_uri=http%3A%2F%2F127.0.0.1%3A") {
		t.Errorf("the browser was sent to %s, want a loopback redirect_uri", start)
	}
	if out, err := runCLI(t, "", "clusters", "list"); err != nil {
		t.Errorf("clusters list with the token of login --sso: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "", "tokens", "list", "-o", "json"); err != nil || !strings.Contains(out, `"login:ada"`) {
		t.Errorf("the admin's token list after login --sso: %v\n%s, want a login:ada token", err, out)
	}
}

// With --no-browser the CLI prints the URL and opens nothing; an answer
// at its loopback without its state is refused and the wait goes on; a
// refusal by the provider ends the login with the reason.
func TestLoginSSONoBrowserAndRefusals(t *testing.T) {
	server, idp := startSSOServer(t)
	t.Setenv("KUBEOPERA_CONFIG", filepath.Join(t.TempDir(), "kubeopera", "config.yaml"))
	orig := openBrowser
	t.Cleanup(func() { openBrowser = orig })
	openBrowser = func(string) error { t.Error("--no-browser opened a browser"); return nil }
	idp.SetUser(testoidc.User{Subject: "u-ada", Username: "ada", Email: "ada@example.com", Groups: []string{"contractors"}})

	cmd := newRootCommand()
	var stderr testlog.Buffer
	cmd.SetOut(io.Discard)
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{"login", server, "--sso", "--no-browser"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(context.Background()) }()
	var start string
	waitUntil(t, 30*time.Second, "the CLI prints the URL", func() bool {
		m := regexp.MustCompile(`(http://\S+` + regexp.QuoteMeta(oidc.CLILoginPath) + `\S+)`).FindStringSubmatch(stderr.String())
		if m != nil {
			start = m[1]
		}
		return m != nil
	})
	u, err := url.Parse(start)
	if err != nil {
		t.Fatal(err)
	}
	loopback := u.Query().Get("redirect_uri")
	resp, err := http.Get(loopback + "?state=not-the-cli-state&code=forged")
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("an answer without the CLI's state: %v %v, want 400", err, resp)
	}
	resp.Body.Close()
	if status, page := browse(t, idp, start, "ada"); status != http.StatusForbidden || !strings.Contains(page, "none of your groups") {
		t.Errorf("the browser's last page: %d %s, want the refusal", status, page)
	}
	select {
	case err := <-done:
		if exitCodeOf(err) != exitAuth || !strings.Contains(err.Error(), "none of your groups") {
			t.Errorf("login --sso refused by the provider: %v (exit %d), want exit %d with the reason", err, exitCodeOf(err), exitAuth)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("login --sso did not end")
	}
}
