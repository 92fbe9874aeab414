package secrets

import (
	"sort"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/secrets/secretstest"
)

// TestRandomFixturesAreAllFound scans every fixture kind generated from
// seeds 0 to 1,999: a genuine random token must be found whatever its
// random part holds by chance — a trailing '-', a 1234 in a hex digest, an
// xXxX in a key body, a tail of letters, a single digit. Each miss names
// the kind and the seed, which secretstest.Fixtures replays.
func TestRandomFixturesAreAllFound(t *testing.T) {
	skipUnderRace(t)
	const seeds = 2000
	misses := map[string][]uint64{}
	total := 0
	for seed := uint64(0); seed < seeds; seed++ {
		for kind, secret := range secretstest.Fixtures(seed) {
			total++
			if len(Scan("The deploy needs this: "+secret)) == 0 {
				misses[kind] = append(misses[kind], seed)
			}
		}
	}
	kinds := make([]string, 0, len(misses))
	for k := range misses {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	n := 0
	for _, k := range kinds {
		s := misses[k]
		n += len(s)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		t.Errorf("%s: %d of %d seeds missed, first seed %d", k, len(s), seeds, s[0])
	}
	if n > 0 {
		t.Errorf("%d of %d generated fixtures missed", n, total)
	}
}
