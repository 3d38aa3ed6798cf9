package serve

import (
	"fmt"
	"net/netip"
	"strings"
)

// ParseTrustedProxies reads --trusted-proxy values: IP addresses or CIDR
// prefixes of the proxies in front of the server, whose X-Forwarded-For
// and X-Forwarded-Proto the server believes.
func ParseTrustedProxies(values []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if p, err := netip.ParsePrefix(v); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(v)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxy %q: want an IP address or a CIDR prefix such as 10.0.0.0/8", v)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
