// Package kubeconfig validates a pasted kubeconfig before anything is created
// from it.
//
// Validate checks the text the way a person would fix it: first that it is
// YAML at all (with the parser's line number), then that it is a kubeconfig,
// then that its current-context leads to a cluster with a usable server
// URL. It never rewrites the input; the caller stores the bytes unchanged.
// No error or Summary carries a token, password, client key or other
// credential from the input.
package kubeconfig
