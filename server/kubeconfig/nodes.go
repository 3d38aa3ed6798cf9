package kubeconfig

import "gopkg.in/yaml.v3"

// The helpers here find where in the input a value is, so errors can carry
// a line. clientcmd.Load gives the values but not their positions. Lookups
// are best effort: a miss yields a nil node and line 0.

// deref follows YAML aliases.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// mappingValue returns the key and value nodes for key in mapping m, or
// nils.
func mappingValue(m *yaml.Node, key string) (k, v *yaml.Node) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], deref(m.Content[i+1])
		}
	}
	return nil, nil
}

// namedEntry returns the entry of the top-level list (clusters, contexts or
// users) whose name is name, or nil.
func namedEntry(root *yaml.Node, list, name string) *yaml.Node {
	_, seq := mappingValue(root, list)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	for _, e := range seq.Content {
		e = deref(e)
		if _, n := mappingValue(e, "name"); n != nil && n.Value == name {
			return e
		}
	}
	return nil
}

// lineOf returns the line of the first non-nil node, or 0.
func lineOf(nodes ...*yaml.Node) int {
	for _, n := range nodes {
		if n != nil {
			return n.Line
		}
	}
	return 0
}

// entryField returns the node at entry.<inner>.<field> (for example a
// context entry's context.cluster) and the nodes on the way, nearest first,
// so a caller can fall back to the closest line that exists.
func entryField(entry *yaml.Node, inner, field string) (value, key, innerKey *yaml.Node) {
	innerKey, innerVal := mappingValue(entry, inner)
	key, value = mappingValue(innerVal, field)
	return value, key, innerKey
}

// walk calls fn for every node reached by following path through mappings,
// descending into the mapping elements of lists on the way; path segments
// name mapping keys. With path "users", "user", "token" it visits each
// user's token. A list inside a list is not entered, so aliases cannot make
// the walk exponential (a "billion laughs" document).
func walk(n *yaml.Node, path []string, fn func(key, value *yaml.Node)) {
	n = deref(n)
	if n == nil || len(path) == 0 {
		return
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if e = deref(e); e.Kind == yaml.MappingNode {
				walk(e, path, fn)
			}
		}
	case yaml.MappingNode:
		k, v := mappingValue(n, path[0])
		if v == nil {
			return
		}
		if len(path) == 1 {
			fn(k, v)
			return
		}
		walk(v, path[1:], fn)
	}
}
