package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
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
	if !to.put(withReader(conn, br, nil)) {
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

// readerConn is a connection read through r: its first bytes peeked into
// a bufio.Reader, or a request replayed in front of the rest. onClose, if
// set, is called once when it is closed.
type readerConn struct {
	net.Conn
	r       io.Reader
	onClose func()
	once    sync.Once
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *readerConn) Close() error {
	if c.onClose != nil {
		c.once.Do(c.onClose)
	}
	return c.Conn.Close()
}

// tlsState is what fasthttp's IsTLS, and with it fiber's c.Protocol and
// Secure cookies, look for on a connection.
type tlsState interface {
	Handshake() error
	ConnectionState() tls.ConnectionState
}

// tlsReaderConn is a readerConn that keeps its TLS state visible.
type tlsReaderConn struct {
	*readerConn
	tls tlsState
}

func (c *tlsReaderConn) Handshake() error                     { return c.tls.Handshake() }
func (c *tlsReaderConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

// tlsOf finds the TLS state under conn, through fasthttp's hijacked
// connection too; nil for a plain one.
func tlsOf(conn net.Conn) tlsState {
	switch c := conn.(type) {
	case tlsState:
		return c
	case interface{ UnsafeConn() net.Conn }:
		return tlsOf(c.UnsafeConn())
	}
	return nil
}

// withReader is conn read through r, its TLS state kept; onClose may be
// nil.
func withReader(conn net.Conn, r io.Reader, onClose func()) net.Conn {
	rc := &readerConn{Conn: conn, r: r, onClose: onClose}
	if t := tlsOf(conn); t != nil {
		return &tlsReaderConn{rc, t}
	}
	return rc
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
	hs := &http.Server{Handler: f.handOffToFiber(px), ReadHeaderTimeout: 30 * time.Second, MaxHeaderBytes: 1 << 20}
	f.handOffToK8s(app)
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
