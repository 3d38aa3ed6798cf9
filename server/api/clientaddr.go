package api

import (
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// ipv6BucketBits is how much of an IPv6 address the sign-in limits count
// as one client: a /64 is what one customer or one LAN gets, and whoever
// holds it can use any of its 2^64 addresses, so counting addresses would
// let a guesser start afresh with every guess.
const ipv6BucketBits = 64

// clientAddr is the address of the client: the connection's, or when the
// connection comes from a trusted proxy, the last address in
// X-Forwarded-For that is not itself a trusted proxy (what a proxy
// appends; anything before it the client may have made up).
func (s *server) clientAddr(c *fiber.Ctx) netip.Addr {
	peer, ok := netip.AddrFromSlice(c.Context().RemoteIP())
	peer = peer.Unmap()
	if !ok || !s.trusted(peer) {
		return peer
	}
	var hops []string
	for _, h := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		hops = append(hops, strings.Split(string(h), ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			break // a malformed hop: stop at the last one a proxy vouched for
		}
		if peer = a; !s.trusted(peer) {
			return peer
		}
	}
	return peer
}

// parseHop reads one X-Forwarded-For entry: an address, or an address and
// port as some proxies write them (203.0.113.7:4711, [2001:db8::1]:4711).
func parseHop(h string) (netip.Addr, bool) {
	h = strings.TrimSpace(h)
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(h); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// addressBucket names the client a sign-in limit counts: an IPv4 address,
// or the /64 an IPv6 address is in.
func addressBucket(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		return netip.PrefixFrom(a, ipv6BucketBits).Masked().String()
	}
	return a.String()
}

func (s *server) trusted(a netip.Addr) bool {
	for _, p := range s.trustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
