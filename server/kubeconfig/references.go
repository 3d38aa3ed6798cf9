package kubeconfig

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// exampleServer shows the form a server URL takes.
const exampleServer = "https://203.0.113.10:6443"

// summarize follows current-context to its cluster and user, checking each
// reference, and returns the summary. root supplies line numbers.
func summarize(cfg *clientcmdapi.Config, root *yaml.Node) (*Summary, error) {
	ccKey, ccVal := mappingValue(root, "current-context")
	name := cfg.CurrentContext
	if name == "" {
		if len(cfg.Contexts) == 0 {
			return nil, &Error{Line: lineOf(ccVal, ccKey), Message: "no contexts and no current-context: add a context naming a cluster and set current-context to it"}
		}
		return nil, &Error{Line: lineOf(ccVal, ccKey), Message: fmt.Sprintf(
			"no current-context: set current-context to one of the contexts (%s)", names(cfg.Contexts))}
	}
	ctx, ok := cfg.Contexts[name]
	if !ok {
		return nil, &Error{Line: lineOf(ccVal), Message: fmt.Sprintf(
			"current-context %q is not among the contexts (%s)", name, names(cfg.Contexts))}
	}
	entry := namedEntry(root, "contexts", name)

	clusterVal, clusterKey, inner := entryField(entry, "context", "cluster")
	if ctx.Cluster == "" {
		return nil, &Error{Line: lineOf(clusterVal, clusterKey, inner, entry), Message: fmt.Sprintf(
			"context %q names no cluster: set its cluster to one of the clusters (%s)", name, names(cfg.Clusters))}
	}
	cluster, ok := cfg.Clusters[ctx.Cluster]
	if !ok {
		return nil, &Error{Line: lineOf(clusterVal, entry), Message: fmt.Sprintf(
			"context %q names cluster %q, which is not among the clusters (%s)", name, ctx.Cluster, names(cfg.Clusters))}
	}
	server, err := checkServer(ctx.Cluster, cluster.Server, namedEntry(root, "clusters", ctx.Cluster))
	if err != nil {
		return nil, err
	}
	if err := checkCA(ctx.Cluster, cluster, namedEntry(root, "clusters", ctx.Cluster)); err != nil {
		return nil, err
	}

	if ctx.AuthInfo != "" {
		if _, ok := cfg.AuthInfos[ctx.AuthInfo]; !ok {
			userVal, _, _ := entryField(entry, "context", "user")
			return nil, &Error{Line: lineOf(userVal, entry), Message: fmt.Sprintf(
				"context %q names user %q, which is not among the users (%s)", name, ctx.AuthInfo, names(cfg.AuthInfos))}
		}
	}
	return &Summary{
		CurrentContext: name,
		Cluster:        ctx.Cluster,
		Server:         server,
		User:           ctx.AuthInfo,
		Contexts:       len(cfg.Contexts),
	}, nil
}

// checkServer checks that a cluster's server is an http(s) URL with a host
// and returns it for display without user information. The value is not
// echoed in errors: a mistaken paste there could be anything.
func checkServer(cluster, server string, entry *yaml.Node) (string, error) {
	val, key, inner := entryField(entry, "cluster", "server")
	line := lineOf(val, key, inner, entry)
	if strings.TrimSpace(server) == "" {
		return "", &Error{Line: line, Message: fmt.Sprintf(
			"cluster %q has no server: set server to the API server's URL, such as %s", cluster, exampleServer)}
	}
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", &Error{Line: line, Message: fmt.Sprintf(
			"cluster %q server is not an https:// or http:// URL: set it to the API server's URL, such as %s", cluster, exampleServer)}
	}
	u.User = nil
	return u.String(), nil
}

// maxNames bounds how many names an error lists.
const maxNames = 10

// names lists a map's keys sorted, for "(dev, staging)" in messages.
// Names are not quoted, to read as a list; quoting was judged noisier than
// the rare name holding a comma.
func names[V any](m map[string]V) string {
	if len(m) == 0 {
		return "there are none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) > maxNames {
		return strings.Join(keys[:maxNames], ", ") + fmt.Sprintf(" and %d more", len(keys)-maxNames)
	}
	return strings.Join(keys, ", ")
}
