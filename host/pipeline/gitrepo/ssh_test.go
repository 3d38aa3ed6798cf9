package gitrepo

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"maps"
	"net"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/ochestra-tech/kubeopera/internal/gitserver"
)

// sshGit is a real SSH server on loopback that runs git-upload-pack and
// git-receive-pack on the gitserver's bare repositories, as GitHub's does.
type sshGit struct {
	addr     string
	hostKey  ssh.PublicKey
	clientOK ssh.PublicKey // the only client key accepted
}

func startSSHGit(t *testing.T, repos *gitserver.Server, clientKey ssh.PublicKey) *sshGit {
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if bytes.Equal(k.Marshal(), clientKey.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("unknown key")
	}}
	cfg.AddHostKey(signer)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveSSH(c, cfg, repos)
		}
	}()
	return &sshGit{addr: l.Addr().String(), hostKey: signer.PublicKey(), clientOK: clientKey}
}

func serveSSH(c net.Conn, cfg *ssh.ServerConfig, repos *gitserver.Server) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go serveSession(ch, chReqs, repos)
	}
}

// serveSession runs the one exec request of a session: "git-<service> '<path>'".
func serveSession(ch ssh.Channel, reqs <-chan *ssh.Request, repos *gitserver.Server) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" || len(req.Payload) < 4 {
			_ = req.Reply(false, nil)
			continue
		}
		command := string(req.Payload[4:]) // SSH string: uint32 length, bytes
		service, arg, _ := strings.Cut(command, " ")
		name := strings.TrimSuffix(strings.Trim(strings.Trim(arg, "'"), "/"), ".git")
		if service != "git-upload-pack" && service != "git-receive-pack" {
			_ = req.Reply(false, nil)
			return
		}
		_ = req.Reply(true, nil)
		cmd := exec.Command("git", strings.TrimPrefix(service, "git-"), repos.RepoDir(name))
		cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
		status := uint32(0)
		if err := cmd.Run(); err != nil {
			status = 1
		}
		_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, status))
		return
	}
}

func newClientKey(t *testing.T) ([]byte, ssh.PublicKey) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := ssh.NewSignerFromKey(priv)
	return pem.EncodeToMemory(block), signer.PublicKey()
}

func TestPublishOverSSHChecksHostKey(t *testing.T) {
	ctx := testCtx(t)
	repos := gitserver.Start(t, gitserver.Options{})
	repos.CreateRepo(t, "fleet")
	key, pub := newClientKey(t)
	srv := startSSHGit(t, repos, pub)
	url := "ssh://git@" + srv.addr + "/fleet.git"
	knownHosts := []byte(knownhosts.Line([]string{knownhosts.Normalize(srv.addr)}, srv.hostKey) + "\n")
	files := map[string]string{"clusters/prod/a.yaml": "a\n"}

	secret := map[string][]byte{"identity": key, "known_hosts": knownHosts}
	auth, err := AuthFromSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Publish(ctx, auth, prodPush(url, files))
	if err != nil {
		t.Fatalf("Publish over SSH: %v", err)
	}
	if !res.Changed || res.Commit != repos.Head(t, "fleet", "main") {
		t.Errorf("Publish = %+v, want the new tip %s", res, repos.Head(t, "fleet", "main"))
	}
	want := map[string]string{"README.md": "# fleet\n", "clusters/prod/a.yaml": "a\n"}
	if got := repos.Files(t, "fleet", "main"); !maps.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}

	// Another host's key in known_hosts: refused before any credential is used.
	_, otherHost := newClientKey(t)
	bad := auth
	bad.SSHKnownHosts = []byte(knownhosts.Line([]string{knownhosts.Normalize(srv.addr)}, otherHost) + "\n")
	files["clusters/prod/a.yaml"] = "b\n"
	_, err = Publish(ctx, bad, prodPush(url, files))
	t.Logf("wrong known_hosts: %v", err)
	if !errors.Is(err, ErrHostKey) {
		t.Errorf("with a wrong known_hosts: err = %v, want ErrHostKey", err)
	}

	// A key the server does not accept.
	otherKey, _ := newClientKey(t)
	stranger := auth
	stranger.SSHPrivateKey = otherKey
	_, err = Publish(ctx, stranger, prodPush(url, files))
	t.Logf("unknown key: %v", err)
	if !errors.Is(err, ErrAuthentication) || !strings.Contains(err.Error(), `check the "identity" key`) {
		t.Errorf("with an unknown key: err = %v, want the SSH authentication error", err)
	}
	if err != nil && strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Errorf("error contains key material: %q", err)
	}
	if repos.CommitCount(t, "fleet", "main") != 2 {
		t.Error("a refused SSH Publish changed the repository")
	}
}
