package chaos

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
	"k8s.io/apimachinery/pkg/util/wait"
)

// pgBin holds PostgreSQL 15's server programs (Debian's postgresql-15),
// the ones hack/with-postgres.sh uses; PGBIN overrides it.
func pgBin() string {
	if dir := os.Getenv("PGBIN"); dir != "" {
		return dir
	}
	return "/usr/lib/postgresql/15/bin"
}

// postgres is a PostgreSQL server this test owns, so it can SIGKILL the
// postmaster and start it again on the same data directory and port, as a
// pod's restart would. hack/with-postgres.sh's server cannot be killed
// from inside the test: it belongs to the script.
type postgres struct {
	dir  string
	port int
	cred *syscall.Credential // the postgres user when run as root: initdb refuses root
	cmd  *exec.Cmd
	// exited is closed once the postmaster has exited and been reaped.
	exited chan struct{}
}

// startPostgres makes a cluster in a new directory and starts it.
func startPostgres(ctx context.Context, t *testing.T) *postgres {
	t.Helper()
	// Not under t.TempDir: its parent is root's alone (0700), and the
	// server runs as the postgres user.
	dir, err := os.MkdirTemp("", "kubeopera-chaos-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := &postgres{dir: dir}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs the postgres user (Debian's postgresql-15 makes it): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(p.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	initdb := p.command(filepath.Join(pgBin(), "initdb"), "-A", "trust", "-U", "postgres", "-D", p.data())
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb (install postgresql-15 or set PGBIN): %v\n%s", err, out)
	}
	p.port = freePort(t)
	if err := p.start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.kill() })
	db := p.open("postgres")
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE kubeopera"); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return p
}

func (p *postgres) data() string { return filepath.Join(p.dir, "data") }

func (p *postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = p.dir
	if p.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	}
	return cmd
}

// URL is the database the server and the controller share.
func (p *postgres) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/kubeopera?sslmode=disable", p.port)
}

func (p *postgres) open(db string) *sql.DB {
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.port, db)
	return sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn), pgdriver.WithTimeout(5*time.Second)))
}

// start runs the postmaster and waits until it answers. After a SIGKILL
// the old backends exit on their own once they notice the postmaster is
// gone; until then a new postmaster refuses the data directory ("pre-
// existing shared memory block is still in use"), so start tries again.
func (p *postgres) start(ctx context.Context) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		log, err := os.OpenFile(filepath.Join(p.dir, "server.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return false, err
		}
		defer log.Close()
		cmd := p.command(filepath.Join(pgBin(), "postgres"), "-D", p.data(), "-p", strconv.Itoa(p.port), "-k", p.dir,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			return false, err
		}
		// Closed, not sent on: await and kill both wait for the exit, and a
		// value taken by one would leave the other waiting for ever (a
		// postmaster refusing the data directory exits at once; await saw
		// it, and the kill after it hung a 30-round run in round 28).
		exited := make(chan struct{})
		var waitErr error
		go func() { waitErr = cmd.Wait(); close(exited) }()
		if last = p.await(ctx, exited, &waitErr); last != nil {
			_ = cmd.Process.Kill()
			<-exited
			return false, nil
		}
		p.cmd, p.exited = cmd, exited
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("start PostgreSQL (log %s): %w (last: %v)", filepath.Join(p.dir, "server.log"), err, last)
	}
	return nil
}

// await waits until the server accepts queries or exits.
func (p *postgres) await(ctx context.Context, exited <-chan struct{}, waitErr *error) error {
	db := p.open("postgres")
	defer db.Close()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		select {
		case <-exited:
			return fmt.Errorf("postgres exited: %v", *waitErr)
		case <-time.After(200 * time.Millisecond):
		}
		if db.PingContext(ctx) == nil {
			return nil
		}
	}
	return fmt.Errorf("postgres did not answer within 30s")
}

// kill SIGKILLs the postmaster (its backends follow) and reaps it.
func (p *postgres) kill() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
	p.cmd = nil
}

// freePort is a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
