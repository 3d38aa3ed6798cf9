package kubeconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// DefaultMaxBytes is the size limit Validate applies when given a
// non-positive maxBytes. Kubeconfigs with embedded certificates are a few
// KiB; a megabyte leaves room for many clusters.
const DefaultMaxBytes = 1 << 20

// Summary describes a valid kubeconfig for display. It holds no credentials.
type Summary struct {
	// CurrentContext is the name of the context in use.
	CurrentContext string
	// Cluster is the name of the current context's cluster.
	Cluster string
	// Server is that cluster's API server URL, without any user information.
	Server string
	// User is the name of the current context's user (auth info), or empty
	// when the context names none.
	User string
	// Contexts is how many contexts the kubeconfig defines.
	Contexts int
	// External lists what would make a user of this kubeconfig run a
	// command or read local files (exec plugins, auth providers, file
	// paths); a service that stores kubeconfigs for others refuses these.
	External []string
	// Unsafe lists what would make a user of this kubeconfig trust an
	// impostor or reach something other than an API server (TLS
	// verification off, a proxy, a link-local server, user information in
	// the URL), each saying why; a service may refuse these unless its
	// administrator allows them.
	Unsafe []string
}

// Validate checks that data is a usable kubeconfig of at most maxBytes
// bytes (DefaultMaxBytes when maxBytes <= 0) and summarises it. Every
// failure is an *Error. data is not modified.
//
// The checks run in this order, so the first error is the first thing to
// fix: not empty; within the size limit; one YAML document (syntax errors
// carry the line yaml.v3 reports, which for some errors is where the
// enclosing block starts rather than the bad line); a mapping with kind
// Config and apiVersion v1 where present; decodable by clientcmd.Load;
// a current-context naming a context whose cluster exists and has an
// http(s) server URL, and whose user exists if named.
//
// Validate reads no files and runs nothing the kubeconfig refers to
// (certificate paths, exec plugins); it only parses.
func Validate(data []byte, maxBytes int) (*Summary, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Message: "empty: paste the file's contents"}
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if len(data) > maxBytes {
		return nil, &Error{Message: fmt.Sprintf(
			"too large: %d bytes, over the limit of %d bytes; paste a single kubeconfig", len(data), maxBytes)}
	}
	root, err := parseYAML(data)
	if err != nil {
		return nil, err
	}
	if err := checkHeader(root); err != nil {
		return nil, err
	}
	cfg, err := load(data, root)
	if err != nil {
		return nil, err
	}
	sum, err := summarize(cfg, root)
	if err != nil {
		return nil, err
	}
	sum.External = externalRefs(cfg)
	sum.Unsafe = unsafeRefs(cfg)
	return sum, nil
}

// yamlLine matches yaml.v3 errors such as "yaml: line 4: did not find
// expected key".
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a yaml.v3 error into an *Error carrying the parser's
// line. yaml.v3 messages describe the syntax, not the content, so they hold
// no values from the input.
func syntaxError(err error) *Error {
	msg := strings.TrimSpace(err.Error())
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Line: line, Message: m[2]}
	}
	return &Error{Message: strings.TrimPrefix(msg, "yaml: ")}
}

// parseYAML parses data as one YAML document whose top level is a mapping
// and returns that mapping.
func parseYAML(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, &Error{Message: "holds only comments: paste the file's contents"}
	} else if err != nil {
		return nil, syntaxError(err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxError(err)
	case !isEmptyDocument(&next):
		return nil, &Error{Line: next.Line, Message: "a second YAML document starts here: paste a single kubeconfig"}
	}
	root := deref(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = deref(root.Content[0])
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Line: root.Line, Message: fmt.Sprintf(
			"the top level is %s, not a mapping: paste the file's contents, which start with keys such as apiVersion, clusters and contexts",
			describeKind(root))}
	}
	return root, nil
}

// isEmptyDocument reports whether n is a document holding nothing, as after
// a trailing "---".
func isEmptyDocument(n *yaml.Node) bool {
	if n.Kind != yaml.DocumentNode {
		return false
	}
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || c.Tag != "!!null" {
			return false
		}
	}
	return true
}

// describeKind names a node's kind for a person, without its value.
func describeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return "a single value"
	default:
		return "empty"
	}
}

// checkHeader checks kind and apiVersion where present; clientcmd.Load
// would otherwise report them as "no kind is registered" in a scheme.
func checkHeader(root *yaml.Node) error {
	if _, v := mappingValue(root, "kind"); v != nil && (v.Kind != yaml.ScalarNode || v.Value != "Config") {
		return &Error{Line: v.Line, Message: fmt.Sprintf("kind is %s; a kubeconfig has kind: Config", shortValue(v, kindValue))}
	}
	if _, v := mappingValue(root, "apiVersion"); v != nil && (v.Kind != yaml.ScalarNode || v.Value != "v1") {
		return &Error{Line: v.Line, Message: fmt.Sprintf("apiVersion is %s; a kubeconfig has apiVersion: v1", shortValue(v, apiVersionValue))}
	}
	return nil
}

// kindValue and apiVersionValue match values shaped like a Kubernetes kind
// (Pod, ConfigMap) or apiVersion (v1, apps/v1, client.authentication.k8s.io/v1beta1).
// Only such values are echoed; anything else, say a token pasted in the
// wrong place, is described rather than quoted.
var (
	kindValue       = regexp.MustCompile(`^(?:[A-Z][a-z]+){1,5}$`)
	apiVersionValue = regexp.MustCompile(`^(?:[a-z][a-z0-9.-]{0,62}/)?v[0-9]+(?:(?:alpha|beta)[0-9]+)?$`)
)

// shortValue quotes a kind or apiVersion value for an error when it has the
// shape re describes.
func shortValue(n *yaml.Node, re *regexp.Regexp) string {
	if n.Kind != yaml.ScalarNode {
		return describeKind(n)
	}
	if !re.MatchString(n.Value) {
		return "an unexpected value"
	}
	return strconv.Quote(n.Value)
}
