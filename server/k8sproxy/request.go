package k8sproxy

import (
	"net/http"
	"net/textproto"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// PathPrefix is where the proxy serves: PathPrefix + "{id}/" + an API
// server path.
const PathPrefix = "/k8s/clusters/"

// MaxBodyBytes caps a request body as kube-apiserver's default
// --max-request-body-bytes does (3 MiB).
const MaxBodyBytes = 3 << 20

// splitPath returns the cluster ID and the API server path of a proxy
// path; false when p is not one.
func splitPath(p string) (id, rest string, ok bool) {
	tail, found := strings.CutPrefix(p, PathPrefix)
	if !found {
		return "", "", false
	}
	id, rest, _ = strings.Cut(tail, "/")
	if id == "" {
		return "", "", false
	}
	return id, "/" + rest, true
}

var infoFactory = &request.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

// requestInfo is what the API server will see the request as: verb,
// resource, namespace, name. A pod's exec, attach and portforward are
// creates whatever the method: a WebSocket upgrade is a GET, which the
// request-info rules call a get, while the API server authorizes it as a
// create (the AuthorizePodWebsocketUpgradeCreatePermission feature, on by
// default since Kubernetes 1.35), and so the audit log must see a change.
func requestInfo(r *http.Request, rest string) (*request.RequestInfo, error) {
	clone := r.Clone(r.Context())
	clone.URL.Path = rest
	clone.URL.RawPath = ""
	info, err := infoFactory.NewRequestInfo(clone)
	if err == nil && info.IsResourceRequest && info.Resource == "pods" && streamingSubresources[info.Subresource] {
		info.Verb = "create"
	}
	return info, err
}

// streamingSubresources are the pod subresources that open a stream into
// a container or its network.
var streamingSubresources = map[string]bool{"exec": true, "attach": true, "portforward": true}

// proxiedResources are the resources whose proxy subresource reaches
// inside the cluster (a node's kubelet, a Service, a pod's port) with the
// API server's own network position; only admins may use them.
var proxiedResources = map[string]bool{"nodes": true, "services": true, "pods": true}

// checkAllowed refuses what the proxy never forwards for role.
func checkAllowed(info *request.RequestInfo, role string) error {
	if info.IsResourceRequest && info.Subresource == "proxy" && proxiedResources[info.Resource] && role != AdminRole {
		return Refuse(http.StatusForbidden, info.Resource+"/proxy is only for platform admins: it reaches inside the cluster with the API server's network access")
	}
	return nil
}

// mutating reports whether a request with this verb changes something on
// the target (exec, attach and port-forward are creates of a subresource).
func mutating(verb string) bool {
	switch verb {
	case "get", "list", "watch":
		return false
	}
	return true
}

// impersonationPrefix starts every header that asks the API server to act
// as someone else.
const impersonationPrefix = "Impersonate-"

// sanitize removes from h every header that carries the caller's
// credential or identity claims, and asks the API server to act as id.
// The caller's own Impersonate-* headers never pass: the target would
// check them against KubeOpera's credential, which may impersonate anyone.
func sanitize(h http.Header, id Identity) {
	for k := range h {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if strings.HasPrefix(ck, impersonationPrefix) || strings.HasPrefix(ck, "X-Remote-") {
			delete(h, k)
		}
	}
	for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Csrf-Token"} {
		h.Del(k)
	}
	h.Set("Impersonate-User", UserPrefix+id.User)
	for _, g := range Groups(id.Role) {
		h.Add("Impersonate-Group", g)
	}
}
