package gitrepo

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// Keys of the git credentials Secret. They are Flux's names, so one Secret
// serves both this pusher and Flux's GitRepository.spec.secretRef.
const (
	SecretUsername    = "username"
	SecretPassword    = "password" // HTTPS password or token; for SSH the identity's passphrase
	SecretBearerToken = "bearerToken"
	SecretIdentity    = "identity"    // SSH private key, PEM or OpenSSH format
	SecretKnownHosts  = "known_hosts" // required with identity
	SecretCA          = "ca.crt"      // optional PEM CA bundle for HTTPS
)

// Auth holds the credentials for the customer's repository. The zero value
// is anonymous access.
type Auth struct {
	// Username and Password are HTTPS basic auth. A token goes in Password;
	// Username defaults to "git" when empty.
	Username, Password string
	// BearerToken is sent as "Authorization: Bearer <token>" over HTTPS,
	// as Flux does with the bearerToken key. Exclusive with Password.
	BearerToken string
	// SSHPrivateKey is the identity for ssh:// URLs; Password, when set, is
	// its passphrase. SSHKnownHosts (known_hosts format) is required with
	// it: the server's host key must be listed, there is no blind trust.
	SSHPrivateKey []byte
	SSHKnownHosts []byte
	// CABundle is extra PEM CA certificates to trust over HTTPS.
	CABundle []byte
}

// AuthFromSecret reads Auth from the data of a git credentials Secret in
// Flux's format: username+password or bearerToken for HTTPS, identity and
// known_hosts (and password as the key's passphrase) for SSH, ca.crt for a
// private CA. An empty Secret is an error; say so with no Secret instead.
func AuthFromSecret(data map[string][]byte) (Auth, error) {
	str := func(k string) string { return strings.TrimSpace(string(data[k])) }
	a := Auth{
		Username:      str(SecretUsername),
		Password:      str(SecretPassword),
		BearerToken:   str(SecretBearerToken),
		SSHPrivateKey: data[SecretIdentity],
		SSHKnownHosts: data[SecretKnownHosts],
		CABundle:      data[SecretCA],
	}
	const prefix = "git credentials Secret: "
	switch {
	case len(a.SSHPrivateKey) > 0:
		if len(a.SSHKnownHosts) == 0 {
			return Auth{}, errors.New(prefix + "key \"known_hosts\" is missing: SSH needs the server's host key (e.g. from `ssh-keyscan <host>`) next to \"identity\"")
		}
		if a.BearerToken != "" {
			return Auth{}, errors.New(prefix + "set either \"identity\" (SSH) or \"bearerToken\" (HTTPS), not both")
		}
	case len(a.SSHKnownHosts) > 0:
		return Auth{}, errors.New(prefix + "key \"identity\" is missing: \"known_hosts\" is only used with an SSH private key in \"identity\"")
	case a.BearerToken != "":
		if a.Password != "" {
			return Auth{}, errors.New(prefix + "set either \"password\" or \"bearerToken\", not both")
		}
	case a.Username != "" && a.Password == "":
		return Auth{}, errors.New(prefix + "key \"password\" is missing: set it to the password or access token of user " + fmt.Sprintf("%q", a.Username))
	case a.Password == "":
		return Auth{}, errors.New(prefix + "no credentials: set \"username\" and \"password\" (HTTPS password or token), \"bearerToken\" (HTTPS), or \"identity\" and \"known_hosts\" (SSH)")
	}
	return a, nil
}

// secrets lists the values that must never appear in an error or log.
func (a Auth) secrets() []string {
	var s []string
	for _, v := range []string{a.Password, a.BearerToken, string(a.SSHPrivateKey)} {
		if v != "" {
			s = append(s, v)
		}
	}
	return s
}

// method returns the go-git auth method for rawURL, or nil for anonymous
// access. SSH credentials need an ssh:// URL and HTTPS ones an http(s) URL.
func (a Auth) method(rawURL string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, fmt.Errorf("git: repository URL %q is not valid: %w", redactURL(rawURL), err)
	}
	isSSH := ep.Protocol == "ssh"
	if ep.Password != "" || (!isSSH && ep.User != "") {
		return nil, fmt.Errorf("git: the URL %s contains credentials: remove them from the URL and put them in the git credentials Secret", redactURL(rawURL))
	}
	switch {
	case len(a.SSHPrivateKey) > 0 && !isSSH:
		return nil, fmt.Errorf("git: the git credentials Secret holds an SSH key but the URL %s is not ssh://: use the ssh:// URL or HTTPS credentials", redactURL(rawURL))
	case isSSH && len(a.SSHPrivateKey) == 0:
		return nil, fmt.Errorf("git: the URL %s is SSH but the git credentials Secret has no \"identity\" key", redactURL(rawURL))
	case isSSH:
		return a.sshMethod(ep)
	case a.BearerToken != "":
		return &githttp.TokenAuth{Token: a.BearerToken}, nil
	case a.Password != "" || a.Username != "":
		user := a.Username
		if user == "" {
			user = "git"
		}
		return &githttp.BasicAuth{Username: user, Password: a.Password}, nil
	}
	return nil, nil
}

func (a Auth) sshMethod(ep *transport.Endpoint) (transport.AuthMethod, error) {
	if len(a.SSHKnownHosts) == 0 {
		return nil, errors.New("git: SSH needs the server's host key: add \"known_hosts\" to the git credentials Secret")
	}
	user := ep.User
	if user == "" {
		user = "git"
	}
	keys, err := gitssh.NewPublicKeys(user, a.SSHPrivateKey, a.Password)
	if err != nil {
		// The parse error names no key material; it may say "passphrase".
		return nil, fmt.Errorf("git: cannot use \"identity\" from the git credentials Secret as an SSH private key: %w", err)
	}
	// go-git and knownhosts read known_hosts from files only; the file lives
	// just long enough to be parsed.
	f, err := os.CreateTemp("", "kubeopera-known_hosts-")
	if err != nil {
		return nil, fmt.Errorf("git: write known_hosts: %w", err)
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(a.SSHKnownHosts)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("git: write known_hosts: %w", werr)
	}
	db, err := gitssh.NewKnownHostsDb(f.Name())
	if err != nil {
		return nil, fmt.Errorf("git: \"known_hosts\" in the git credentials Secret is not valid known_hosts: %w", err)
	}
	port := ep.Port
	if port == 0 {
		port = 22
	}
	keys.HostKeyCallback = db.HostKeyCallback()
	// Offer only the key types known_hosts lists, or the server may present
	// another type and fail verification although its key is listed.
	keys.HostKeyAlgorithms = db.HostKeyAlgorithms(net.JoinHostPort(ep.Host, fmt.Sprint(port)))
	return keys, nil
}

// redactURL hides credentials embedded in a URL: all of an http(s)
// userinfo (a token is often the user name there), an ssh password.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if scheme, rest, ok := strings.Cut(raw, "://"); ok {
			if at := strings.LastIndex(rest, "@"); at >= 0 {
				return scheme + "://***@" + rest[at+1:]
			}
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		u.User = url.User("***")
		return u.String()
	}
	return u.Redacted()
}
