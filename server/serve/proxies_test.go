package serve

import (
	"strings"
	"testing"
)

func TestParseTrustedProxiesTakesAddressesAndPrefixes(t *testing.T) {
	got, err := ParseTrustedProxies([]string{"10.0.0.0/8", " 192.0.2.7 ", "", "::ffff:198.51.100.1", "fd00::/8", "10.1.2.3/8"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.7/32", "198.51.100.1/32", "fd00::/8", "10.0.0.0/8"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("entry %d: %s, want %s", i, got[i], want[i])
		}
	}
	if _, err := ParseTrustedProxies([]string{"gateway.local"}); err == nil || !strings.Contains(err.Error(), "CIDR") {
		t.Errorf("a host name: %v, want an error naming the accepted forms", err)
	}
}
