package kubeconfig

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// load decodes data with clientcmd.Load, the decoder kubectl uses, and turns
// its errors into ones a person can act on. Messages are redacted of every
// credential found in root.
func load(data []byte, root *yaml.Node) (*clientcmdapi.Config, error) {
	cfg, err := clientcmd.Load(data)
	if err == nil {
		return cfg, nil
	}
	e := loadError(err, root)
	e.Message = redact(e.Message, root)
	return nil, e
}

func loadError(err error, root *yaml.Node) *Error {
	var corrupt base64.CorruptInputError
	if errors.As(err, &corrupt) {
		return base64Error(root)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return typeError(typeErr, root)
	}
	// Load converts YAML to JSON with a YAML 1.1 parser, which can reject
	// what yaml.v3 accepted; keep the line if its message has one.
	if m := loadYAMLLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Line: line, Message: m[2]}
	}
	return &Error{Message: "not a valid kubeconfig: " + err.Error()}
}

var loadYAMLLine = regexp.MustCompile(`yaml: line (\d+): (.*)$`)

// dataFields are the kubeconfig fields holding base64.
var dataFields = []struct{ list, kind, inner, field string }{
	{"clusters", "cluster", "cluster", "certificate-authority-data"},
	{"users", "user", "user", "client-certificate-data"},
	{"users", "user", "user", "client-key-data"},
}

// base64Error finds the field Load could not decode; Load's own error says
// only "illegal base64 data at input byte N".
func base64Error(root *yaml.Node) *Error {
	for _, f := range dataFields {
		_, seq := mappingValue(root, f.list)
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for _, entry := range seq.Content {
			v, _, _ := entryField(entry, f.inner, f.field)
			if v == nil || v.Kind != yaml.ScalarNode {
				continue
			}
			if _, err := base64.StdEncoding.DecodeString(v.Value); err == nil {
				continue
			}
			_, name := mappingValue(entry, "name")
			return &Error{Line: v.Line, Message: fmt.Sprintf(
				"%s of %s %q is not valid base64: paste it as it appears in the original file, not as PEM text",
				f.field, f.kind, scalarValue(name))}
		}
	}
	return &Error{Message: "a *-data field is not valid base64: paste the values as they appear in the original file"}
}

// typeError reports a value of the wrong type by its path, such as
// "users.user.token is a list but must be a string".
func typeError(e *json.UnmarshalTypeError, root *yaml.Node) *Error {
	// Value may be "number 1e999": keep the kind, drop the literal.
	got, _, _ := strings.Cut(e.Value, " ")
	msg := fmt.Sprintf("%s is %s but must be %s", e.Field, jsonKind(got), goKind(e.Type))
	if (got == "bool" || got == "number") && e.Type != nil && e.Type.Kind() == reflect.String {
		msg += "; quote it, since YAML reads unquoted numbers and words such as yes, no, on, off, y and n as other types"
	}
	line := 0
	walk(root, strings.Split(e.Field, "."), func(_, v *yaml.Node) {
		if line == 0 && kindMatches(v, got) {
			line = v.Line
		}
	})
	return &Error{Line: line, Message: msg}
}

func jsonKind(v string) string {
	switch v {
	case "array":
		return "a list"
	case "object":
		return "a mapping"
	case "string":
		return "text"
	case "bool":
		return "a boolean"
	case "number":
		return "a number"
	}
	return v
}

func goKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return goKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "base64 text"
		}
		return "a list"
	case reflect.Struct, reflect.Map:
		return "a mapping"
	}
	return t.String()
}

// kindMatches reports whether n looks like the JSON kind Load objected to,
// so the error can point at the offending line.
func kindMatches(n *yaml.Node, jsonKind string) bool {
	switch jsonKind {
	case "array":
		return n.Kind == yaml.SequenceNode
	case "object":
		return n.Kind == yaml.MappingNode
	case "string":
		return n.Kind == yaml.ScalarNode && n.Tag == "!!str"
	case "number":
		return n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float")
	case "bool":
		// YAML 1.1 booleans such as "yes" are strings to yaml.v3.
		return n.Kind == yaml.ScalarNode && (n.Tag == "!!bool" || isYAML11Bool(n.Value))
	}
	return false
}

func isYAML11Bool(s string) bool {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false":
		return true
	}
	return false
}

func scalarValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// minSecretLen is the shortest value redact removes; shorter ones would
// also match ordinary words of a message, and are unlikely to be quoted
// whole by a decoder.
const minSecretLen = 6

// redact removes from msg every value in root but entry names, and every mapping key that
// is not a kubeconfig field name: a decoder's message can quote any of
// them, and a token pasted as a (complex) key is as secret as one in its
// place.
func redact(msg string, root *yaml.Node) string {
	var secrets []string
	everyValue(root, map[*yaml.Node]bool{}, func(v string) {
		if len(v) >= minSecretLen {
			secrets = append(secrets, v)
		}
	})
	// Longest first, so a value containing another is removed whole.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	for _, v := range secrets {
		msg = strings.ReplaceAll(msg, v, "[redacted]")
	}
	return msg
}

// everyValue calls fn for every scalar in n except known field names used
// as keys. Each node is visited once, so aliases cannot make it loop or
// blow up.
func everyValue(n *yaml.Node, seen map[*yaml.Node]bool, fn func(string)) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	switch n.Kind {
	case yaml.ScalarNode:
		fn(n.Value)
	case yaml.AliasNode:
		everyValue(n.Alias, seen, fn)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || !knownKeys[k.Value] {
				everyValue(k, seen, fn)
			}
			// Names of clusters, contexts and users are kept: messages
			// point at entries by them.
			if k.Kind != yaml.ScalarNode || !nameKeys[k.Value] || deref(n.Content[i+1]).Kind != yaml.ScalarNode {
				everyValue(n.Content[i+1], seen, fn)
			}
		}
	default:
		for _, c := range n.Content {
			everyValue(c, seen, fn)
		}
	}
}

// nameKeys hold the names of entries or refer to them by name.
var nameKeys = map[string]bool{"name": true, "cluster": true, "user": true, "current-context": true, "namespace": true}

// knownKeys are the field names of a kubeconfig; they are kept in messages,
// which name fields by them.
var knownKeys = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`apiVersion kind preferences colors clusters contexts users current-context
		name cluster context user server certificate-authority certificate-authority-data insecure-skip-tls-verify
		tls-server-name proxy-url disable-compression extensions extension namespace client-certificate
		client-certificate-data client-key client-key-data token tokenFile as as-uid as-groups as-user-extra
		username password auth-provider config exec command args env value installHint provideClusterInfo
		interactiveMode`) {
		knownKeys[k] = true
	}
}
