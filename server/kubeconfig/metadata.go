package kubeconfig

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// resolve looks a server's host name up; tests replace it. A name that
// does not resolve is not refused here: the controller's dial fails on it
// with its own error.
var resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// resolveTimeout bounds the lookup of one server name at validation.
const resolveTimeout = time.Second

// metadataNames are the names clouds serve instance metadata under.
var metadataNames = map[string]bool{
	"metadata.google.internal": true, "metadata.goog": true, "metadata": true,
	"instance-data": true, "instance-data.ec2.internal": true, "metadata.azure.com": true,
}

// metadataAddrs are instance-metadata addresses outside the link-local
// ranges: AWS's IPv6 endpoint and Alibaba Cloud's.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("fd00:ec2::254"):   true,
	netip.MustParseAddr("100.100.100.200"): true,
}

// nat64 is the well-known NAT64 prefix (RFC 6052): an address in it
// reaches the IPv4 address in its last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// metadataHost reports whether host (a server URL's host, without port)
// reaches a cloud's instance metadata service, by name, by address in any
// spelling a resolver or a dialer takes (dotted, decimal, hex, octal, IPv4
// in IPv6), or by what the name resolves to; and the address or name
// found.
func metadataHost(host string) (string, bool) {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if metadataNames[host] {
		return host, true
	}
	if a, ok := parseAddr(host); ok {
		return a.Unmap().String(), isMetadata(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := resolve(ctx, host)
	if err != nil {
		return "", false
	}
	for _, a := range addrs {
		if isMetadata(a) {
			return host + " (" + a.Unmap().String() + ")", true
		}
	}
	return "", false
}

// isMetadata: a link-local address (169.254.0.0/16, fe80::/10), a known
// metadata address, or one of those behind IPv4-mapped, IPv4-compatible or
// NAT64 IPv6.
func isMetadata(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		if nat64.Contains(a) || [12]byte(b[:12]) == [12]byte{} {
			a = netip.AddrFrom4([4]byte(b[12:]))
		}
	}
	return a.IsLinkLocalUnicast() || metadataAddrs[a]
}

// parseAddr parses an IP address as dialers do, including the IPv4 forms
// of inet_aton: one to four parts, each decimal, 0x-hex or 0-octal, the
// last filling the remaining bytes (2852039166, 0xa9fea9fe, 0251.0376.0251.0376,
// 169.254.43518).
func parseAddr(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		v, err := strconv.ParseUint(p, 0, 32) // base 0: 0x hex, 0 octal, else decimal
		if err != nil || p == "" {
			return netip.Addr{}, false
		}
		vals = append(vals, v)
	}
	var ip uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		ip |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	ip |= last
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}
