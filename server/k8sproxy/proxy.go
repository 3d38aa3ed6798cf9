// Package k8sproxy is KubeOpera's authenticated proxy to managed clusters:
// it authenticates a caller with the server's own tokens and sessions,
// forwards to the cluster's API server with KubeOpera's credential for it
// plus Impersonate-User and Impersonate-Group, streams watches and
// upgrades (exec, attach, port-forward) without buffering, audits changes,
// and ends open requests whose credential was revoked.
package k8sproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/proxy"
)

// Options configure a Proxy; Auth and Clusters are required.
type Options struct {
	Auth     Authenticator
	Clusters Clusters
	// Audit stores audit events; nil keeps none.
	Audit AuditLog
	Log   *slog.Logger
	// Recheck is how often the credentials of open requests are checked
	// again (default 2s): a revoked one ends its watches and streams.
	Recheck time.Duration
	// ReadFlush is how often read counts go to the audit log (default 1m).
	ReadFlush time.Duration
}

// Proxy is the http.Handler of PathPrefix.
type Proxy struct {
	auth      Authenticator
	authCache *authCache
	upstreams *upstreams
	open      *openRequests
	reads     *readCounter
	audit     AuditLog
	log       *slog.Logger
	recheck   time.Duration
	readFlush time.Duration
}

// New returns a proxy; Run must run beside it for revocation and read
// counts.
func New(o Options) *Proxy {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Recheck <= 0 {
		o.Recheck = 2 * time.Second
	}
	if o.ReadFlush <= 0 {
		o.ReadFlush = time.Minute
	}
	return &Proxy{auth: o.Auth, authCache: newAuthCache(), upstreams: newUpstreams(o.Clusters), open: newOpenRequests(), reads: newReadCounter(),
		audit: o.Audit, log: o.Log, recheck: o.Recheck, readFlush: o.ReadFlush}
}

// Run re-checks open requests' credentials and flushes read counts until
// ctx ends, then flushes once more.
func (p *Proxy) Run(ctx context.Context) {
	recheck := time.NewTicker(p.recheck)
	defer recheck.Stop()
	flush := time.NewTicker(p.readFlush)
	defer flush.Stop()
	for {
		select {
		case <-ctx.Done():
			p.flushReads(context.WithoutCancel(ctx))
			return
		case <-recheck.C:
			p.open.recheck(ctx, p.auth, p.log, p.authCache.forget)
		case <-flush.C:
			p.flushReads(ctx)
		}
	}
}

// ServeHTTP authenticates, authorizes and forwards one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	clusterID, rest, ok := splitPath(r.URL.Path)
	if !ok {
		writeStatus(w, Refuse(http.StatusNotFound, "the proxy serves "+PathPrefix+"{cluster-id}/..."))
		return
	}
	id, err := p.authCache.authenticate(r.Context(), p.auth, r, clusterID)
	if err != nil {
		p.refuse(w, r, err)
		return
	}
	info, err := requestInfo(r, rest)
	if err != nil {
		writeStatus(w, Refuse(http.StatusBadRequest, "cannot read the request: "+err.Error()))
		return
	}
	if err := checkAllowed(info, id.Role); err != nil {
		writeStatus(w, err)
		return
	}
	up, err := p.upstreams.get(r.Context(), clusterID)
	if err != nil {
		p.refuse(w, r, clusterRefusal(clusterID, err))
		return
	}
	if r.ContentLength > MaxBodyBytes {
		writeStatus(w, Refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", MaxBodyBytes)))
		return
	}
	if err := nameCreated(r, info); err != nil {
		writeStatus(w, err)
		return
	}
	status := p.forward(w, r, id, up, rest)
	p.record(r.Context(), id, clusterID, info, status)
}

// forward sends r to up as id and returns the status the caller got.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, id Identity, up *upstream, rest string) int {
	ctx, req := p.open.add(r.Context(), id)
	defer req.end()
	out := r.Clone(ctx)
	if r.Body != nil && r.Body != http.NoBody {
		out.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	}
	sanitize(out.Header, id)
	rec := &recorder{ResponseWriter: w, onHijack: req.hijacked}
	h := proxy.NewUpgradeAwareHandler(up.location(rest, r.URL.RawQuery), up.transport, false, false, responder{p, up.name})
	h.UpgradeTransport = up.upgrade
	h.UseLocationHost = true
	h.RejectForwardingRedirects = true
	h.ServeHTTP(rec, out)
	return rec.code()
}

func clusterRefusal(id string, err error) error {
	if errors.Is(err, ErrNoCluster) {
		return Refuse(http.StatusNotFound, fmt.Sprintf("cluster %q does not exist or has no kubeconfig yet", id))
	}
	return fmt.Errorf("find cluster %s: %w", id, err)
}

func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, err error) {
	rf := asRefusal(err)
	if rf.Status == http.StatusInternalServerError {
		p.log.Error("proxy request failed", "path", r.URL.Path, "reason", err)
	}
	if rf.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="kubeopera"`)
	}
	writeStatus(w, rf)
}

// responder answers a failure to reach the target.
type responder struct {
	p       *Proxy
	cluster string
}

func (e responder) Error(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(r.Context().Err(), context.Canceled) {
		return // the caller left, or its credential was revoked
	}
	e.p.log.Warn("proxy could not reach the cluster", "cluster", e.cluster, "reason", err)
	writeStatus(w, Refuse(http.StatusBadGateway, fmt.Sprintf("cluster %s cannot be reached: %v", e.cluster, err)))
}

var reasons = map[int]metav1.StatusReason{
	http.StatusBadRequest: metav1.StatusReasonBadRequest, http.StatusUnauthorized: metav1.StatusReasonUnauthorized,
	http.StatusForbidden: metav1.StatusReasonForbidden, http.StatusNotFound: metav1.StatusReasonNotFound,
	http.StatusRequestEntityTooLarge: metav1.StatusReasonRequestEntityTooLarge,
}

// writeStatus answers with a Kubernetes Status, which kubectl and
// client-go print as the error's message.
func writeStatus(w http.ResponseWriter, err error) {
	rf := asRefusal(err)
	reason, ok := reasons[rf.Status]
	if !ok {
		reason = metav1.StatusReasonServiceUnavailable
	}
	st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: rf.Message, Reason: reason, Code: int32(rf.Status)}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rf.Status)
	_ = json.NewEncoder(w).Encode(st)
}
