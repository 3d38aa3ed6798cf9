package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// The server's one listener carries two servers: fiber (the API and the
// dashboard) and net/http (the cluster proxy, which needs streaming
// responses and connection hijacking that fiber cannot give). front reads
// the first request line of each connection and hands the connection to
// the server of its path: a connection whose first request is under
// /k8s/ goes to net/http, every other one to fiber, unchanged (its remote
// address, TLS state and limits are fiber's own). Clients keep the two
// apart: kubectl only ever asks /k8s/, the dashboard and the CLI never.
type front struct {
	ln       net.Listener
	api, k8s *chanListener
}

func newFront(ln net.Listener) *front {
	return &front{ln: ln, api: newChanListener(ln.Addr()), k8s: newChanListener(ln.Addr())}
}

// sniffTimeout bounds the wait for a new connection's first request line.
const sniffTimeout = 30 * time.Second

// accept routes connections until ln is closed.
func (f *front) accept() {
	defer f.api.Close()
	defer f.k8s.Close()
	for {
		conn, err := f.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		go f.route(conn)
	}
}

func (f *front) route(conn net.Conn) {
	br := bufio.NewReaderSize(conn, 4096)
	_ = conn.SetReadDeadline(time.Now().Add(sniffTimeout))
	toK8s, err := firstPathIsK8s(br)
	_ = conn.SetReadDeadline(time.Time{})
	if err != nil {
		conn.Close()
		return
	}
	to := f.api
	if toK8s {
		to = f.k8s
	}
	if !to.put(wrapPeeked(conn, br)) {
		conn.Close()
	}
}

var k8sPrefix = []byte("/k8s/")

// firstPathIsK8s reads (without consuming) the start of the first request
// line until it can tell whether its path starts with /k8s/.
func firstPathIsK8s(br *bufio.Reader) (bool, error) {
	for n := 1; ; n = br.Buffered() + 1 {
		if _, err := br.Peek(n); err != nil {
			return false, err
		}
		b, _ := br.Peek(br.Buffered()) // all that has come so far
		sp := bytes.IndexByte(b, ' ')
		switch {
		case sp < 0 && len(b) > 16, bytes.IndexByte(b, '\n') >= 0 && sp < 0:
			return false, nil // not HTTP/1 as the proxy knows it: fiber answers
		case sp < 0:
			continue
		}
		path := b[sp+1:]
		if len(path) >= len(k8sPrefix) {
			return bytes.HasPrefix(path, k8sPrefix), nil
		}
		if !bytes.HasPrefix(k8sPrefix, path) {
			return false, nil
		}
	}
}

// peekedConn is a connection whose first bytes sit in a bufio.Reader.
type peekedConn struct {
	net.Conn
	br *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.br.Read(p) }

// peekedTLSConn keeps the TLS state visible (fasthttp's IsTLS, and with it
// fiber's c.Protocol and Secure cookies, look for these methods).
type peekedTLSConn struct {
	peekedConn
	tls *tls.Conn
}

func (c *peekedTLSConn) Handshake() error                     { return c.tls.Handshake() }
func (c *peekedTLSConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

func wrapPeeked(conn net.Conn, br *bufio.Reader) net.Conn {
	if t, ok := conn.(*tls.Conn); ok {
		return &peekedTLSConn{peekedConn{conn, br}, t}
	}
	return &peekedConn{conn, br}
}

// chanListener is a net.Listener fed by front.
type chanListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *chanListener) put(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return l.addr }

// shutdownGrace is how long requests in flight get to finish on shutdown.
const shutdownGrace = 10 * time.Second

// serveFront serves app and the cluster proxy px on ln until ctx ends or
// either server fails, then calls stopping and shuts both down.
func serveFront(ctx context.Context, ln net.Listener, app *fiber.App, px http.Handler, stopping func()) error {
	f := newFront(ln)
	hs := &http.Server{Handler: px, ReadHeaderTimeout: 30 * time.Second, MaxHeaderBytes: 1 << 20}
	errc := make(chan error, 2)
	go f.accept()
	go func() { errc <- app.Listener(f.api) }()
	go func() {
		if err := hs.Serve(f.k8s); !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			errc <- err
		}
	}()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		stopping()
	}
	ln.Close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	// Watches and streams run until their clients leave: past the grace
	// period they are cut.
	if herr := hs.Shutdown(sctx); herr != nil {
		hs.Close()
	}
	return errors.Join(err, app.ShutdownWithTimeout(shutdownGrace))
}
