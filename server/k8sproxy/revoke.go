package k8sproxy

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// openRequests tracks the requests in flight by credential and cluster,
// so that a credential found revoked (or a role on a cluster changed)
// ends all of them: a watch's context is
// cancelled, an upgraded stream's connection closed.
type openRequests struct {
	mu     sync.Mutex
	byCred map[string]*credRequests
}

type credRequests struct {
	id   Identity
	reqs map[*openRequest]struct{}
}

// openRequest is one request in flight.
type openRequest struct {
	owner  *openRequests
	cred   string
	cancel context.CancelFunc
	mu     sync.Mutex
	conn   net.Conn
	ended  bool
}

func newOpenRequests() *openRequests { return &openRequests{byCred: map[string]*credRequests{}} }

// add registers a request of id; the returned context ends when the
// request is ended, by itself (end) or by a revocation.
func (o *openRequests) add(ctx context.Context, id Identity) (context.Context, *openRequest) {
	ctx, cancel := context.WithCancel(ctx)
	r := &openRequest{owner: o, cred: id.openKey(), cancel: cancel}
	o.mu.Lock()
	c, ok := o.byCred[r.cred]
	if !ok {
		c = &credRequests{id: id, reqs: map[*openRequest]struct{}{}}
		o.byCred[r.cred] = c
	}
	c.reqs[r] = struct{}{}
	o.mu.Unlock()
	return ctx, r
}

// end ends the request and forgets it; safe to call more than once.
func (r *openRequest) end() {
	r.cancel()
	r.mu.Lock()
	r.ended = true
	if r.conn != nil {
		r.conn.Close()
	}
	r.mu.Unlock()
	o := r.owner
	o.mu.Lock()
	if c, ok := o.byCred[r.cred]; ok {
		delete(c.reqs, r)
		if len(c.reqs) == 0 {
			delete(o.byCred, r.cred)
		}
	}
	o.mu.Unlock()
}

// hijacked remembers the caller's connection of an upgraded request, which
// only closing ends.
func (r *openRequest) hijacked(c net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		c.Close()
		return
	}
	r.conn = c
}

// recheck asks auth about every credential with open requests and ends the
// requests of those no longer valid. A failed check (the database is
// down) ends nothing: the next one decides.
func (o *openRequests) recheck(ctx context.Context, auth Authenticator, log *slog.Logger, invalid func(cred string)) {
	o.mu.Lock()
	ids := make([]Identity, 0, len(o.byCred))
	for _, c := range o.byCred {
		ids = append(ids, c.id)
	}
	o.mu.Unlock()
	now := time.Now()
	for _, id := range ids {
		ok := id.Expires.IsZero() || now.Before(id.Expires)
		if ok {
			var err error
			if ok, err = auth.Valid(ctx, id); err != nil {
				log.Warn("could not check the credential of open proxy requests", "user", id.User, "reason", err)
				continue
			}
		}
		if !ok {
			invalid(id.Credential)
			o.endAll(id.openKey())
			log.Info("ended proxy requests of a revoked or expired credential, or of a role that changed", "user", id.User, "cluster", id.Cluster)
		}
	}
}

func (o *openRequests) endAll(cred string) {
	o.mu.Lock()
	var reqs []*openRequest
	if c, ok := o.byCred[cred]; ok {
		for r := range c.reqs {
			reqs = append(reqs, r)
		}
	}
	o.mu.Unlock()
	for _, r := range reqs {
		r.end()
	}
}

// recorder notes the status the caller got and hands a hijacked
// connection to onHijack, passing Flush and Hijack through so watches
// stream and upgrades work.
type recorder struct {
	http.ResponseWriter
	status   int
	onHijack func(net.Conn)
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil {
		r.status = http.StatusSwitchingProtocols
		r.onHijack(conn)
	}
	return conn, rw, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}
