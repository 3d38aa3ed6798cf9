package k8sproxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// AuditLog stores audit events: the server's store.
type AuditLog interface {
	AddAuditEvent(ctx context.Context, e *store.AuditEvent) error
}

// AuditRoute is the Route of every event the proxy records; Method holds
// the Kubernetes verb and Target the cluster ID.
const AuditRoute = "/k8s/clusters/:id"

// ReadsMethod is the Method of the event that counts a user's reads of a
// cluster over one flush interval.
const ReadsMethod = "READS"

// record audits a mutating request, one event each, and counts a read.
func (p *Proxy) record(ctx context.Context, id Identity, cluster string, info *request.RequestInfo, status int) {
	if !mutating(info.Verb) {
		p.reads.add(readKey{user: id.User, tokenID: id.TokenID, cluster: cluster})
		return
	}
	if p.audit == nil {
		return
	}
	ev := &store.AuditEvent{Actor: id.User, ActorID: id.TokenID, Method: info.Verb, Route: AuditRoute + " " + describe(info),
		Target: cluster, Status: status, RequestID: requestID()}
	if err := p.audit.AddAuditEvent(context.WithoutCancel(ctx), ev); err != nil {
		p.log.Warn("proxy audit event not recorded", "user", id.User, "cluster", cluster, "verb", info.Verb, "reason", err)
	}
}

// describe names what a request acted on: resource[/subresource], then
// namespace and name when it has them, or the path of a non-resource URL.
func describe(info *request.RequestInfo) string {
	if !info.IsResourceRequest {
		return info.Path
	}
	var b strings.Builder
	if info.APIGroup != "" {
		b.WriteString(info.APIGroup + "/")
	}
	b.WriteString(info.Resource)
	if info.Subresource != "" {
		b.WriteString("/" + info.Subresource)
	}
	if info.Namespace != "" {
		b.WriteString(" namespace=" + info.Namespace)
	}
	if info.Name != "" {
		b.WriteString(" name=" + info.Name)
	}
	return b.String()
}

// nameCreated fills in info.Name of a create from its JSON body (a create
// names its object in the body, not the path), so the audit event says
// what was created; the body is read once, within MaxBodyBytes, and put
// back. Other encodings keep the name out of the event.
func nameCreated(r *http.Request, info *request.RequestInfo) error {
	ct := r.Header.Get("Content-Type")
	isJSON, isProto := strings.HasPrefix(ct, "application/json"), strings.HasPrefix(ct, "application/vnd.kubernetes.protobuf")
	if info.Verb != "create" || info.Name != "" || r.Body == nil || r.Body == http.NoBody || (!isJSON && !isProto) {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	r.Body.Close()
	if err != nil {
		return Refuse(http.StatusBadRequest, "could not read the request body: "+err.Error())
	}
	if len(body) > MaxBodyBytes {
		return Refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", MaxBodyBytes))
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	if isProto {
		info.Name = protobufName(body)
		return nil
	}
	var obj struct {
		Metadata struct {
			Name         string `json:"name"`
			GenerateName string `json:"generateName"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &obj) == nil {
		info.Name = obj.Metadata.Name
		if info.Name == "" && obj.Metadata.GenerateName != "" {
			info.Name = obj.Metadata.GenerateName + "*"
		}
	}
	return nil
}

// protobufMagic starts every Kubernetes protobuf body.
var protobufMagic = []byte("k8s\x00")

// protobufName is metadata.name of a Kubernetes protobuf body: an
// envelope (runtime.Unknown) whose object has ObjectMeta as field 1 and
// ObjectMeta its name as field 1, as every built-in type does. "" when the
// body is not so.
func protobufName(body []byte) string {
	var u runtime.Unknown
	if !bytes.HasPrefix(body, protobufMagic) || u.Unmarshal(body[len(protobufMagic):]) != nil {
		return ""
	}
	meta := protobufField(u.Raw, 1)
	return string(protobufField(meta, 1))
}

// protobufField is the first length-delimited field num of msg.
func protobufField(msg []byte, num protowire.Number) []byte {
	for len(msg) > 0 {
		n, typ, l := protowire.ConsumeTag(msg)
		if l < 0 {
			return nil
		}
		msg = msg[l:]
		if n == num && typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(msg)
			if l < 0 {
				return nil
			}
			return v
		}
		if l = protowire.ConsumeFieldValue(n, typ, msg); l < 0 {
			return nil
		}
		msg = msg[l:]
	}
	return nil
}

func requestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "k8s-" + hex.EncodeToString(b)
}

// readKey is who read which cluster.
type readKey struct{ user, tokenID, cluster string }

// readCounter counts reads in memory, so a watch or a polling client
// costs the audit log one row per user, cluster and flush interval rather
// than one per request.
type readCounter struct {
	mu    sync.Mutex
	n     map[readKey]int64
	since time.Time
}

func newReadCounter() *readCounter { return &readCounter{n: map[readKey]int64{}, since: time.Now()} }

func (c *readCounter) add(k readKey) {
	c.mu.Lock()
	c.n[k]++
	c.mu.Unlock()
}

// take returns the counts so far and starts over.
func (c *readCounter) take() (map[readKey]int64, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, since := c.n, c.since
	c.n, c.since = map[readKey]int64{}, time.Now()
	return n, since
}

// flushReads writes one READS event per user and cluster read since the
// last flush: Route says how many reads and since when.
func (p *Proxy) flushReads(ctx context.Context) {
	counts, since := p.reads.take()
	if p.audit == nil {
		return
	}
	for k, n := range counts {
		ev := &store.AuditEvent{Actor: k.user, ActorID: k.tokenID, Method: ReadsMethod, Target: k.cluster, Status: 200,
			Route: fmt.Sprintf("%s reads=%d since=%s", AuditRoute, n, since.UTC().Format(time.RFC3339)), RequestID: requestID()}
		if err := p.audit.AddAuditEvent(ctx, ev); err != nil {
			p.log.Warn("proxy read counts not recorded", "user", k.user, "cluster", k.cluster, "reads", n, "reason", err)
		}
	}
}
