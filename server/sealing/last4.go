package sealing

// Last4 returns a hint of a secret for display: "…" followed by its last
// four characters. Shorter secrets show fewer characters, never more than
// half of the secret, and a secret of four characters or fewer shows as
// "****", so the whole secret is never returned. Characters are runes, so a
// multi-byte character is never cut in half.
func Last4(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return "****"
	}
	n := min(4, len(r)/2)
	return "…" + string(r[len(r)-n:])
}
