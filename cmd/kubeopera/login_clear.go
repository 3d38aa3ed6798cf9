package main

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
)

// warnIfClear warns, before anything is sent, that a password and token
// sent to an http:// server other than this machine's loopback travel
// unencrypted, readable and replayable by anyone on the way.
func warnIfClear(w io.Writer, u *url.URL) {
	if u.Scheme != "http" || isLoopback(u.Hostname()) {
		return
	}
	fmt.Fprintf(w, "warning: http://%s is not encrypted: your password and the API token will travel in clear "+
		"(at login and with every later command); use https:// (plain http is safe only on loopback)\n", u.Host)
}

// isLoopback is true for localhost and loopback addresses (127.0.0.0/8, ::1).
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
