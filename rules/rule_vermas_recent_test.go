package rules

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestVmRecentAgreesWithMap: a vmRecent answers either the number last
// put for an id or 0 (not held), never another id's number, for ids of
// every length (those longer than an entry holds are never held) and
// many more ids than entries (their slots collide).
func TestVmRecentAgreesWithMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var c vmRecent
	if c.get([]byte("wo-1")) != 0 {
		t.Fatal("an empty vmRecent holds an id")
	}
	model := map[string]uint32{}
	var ids []string
	for i := range 5000 {
		id := fmt.Sprintf("wo-%08x", rng.Uint32())
		switch i % 7 {
		case 0:
			id = id[:rng.IntN(len(id)+1)] // short, empty
		case 1:
			id += fmt.Sprintf("-%020d", i) // longer than an entry
		case 2:
			id = id[:8] // one word exactly
		case 3:
			id += fmt.Sprintf("-%0*d", rng.IntN(16), i%10) // 13 to 27 bytes: a last word that overlaps
		}
		ids = append(ids, id)
	}
	held := 0
	for n := uint32(1); n < 200000; n++ {
		id := ids[rng.IntN(len(ids))]
		if rng.IntN(2) == 0 {
			c.put([]byte(id), n)
			model[id] = n
			continue
		}
		got := c.get([]byte(id))
		if got != 0 && got != model[id] {
			t.Fatalf("get(%q) = %d, last put %d", id, got, model[id])
		}
		if got != 0 {
			held++
		}
		if got != 0 && len(id) > len(vmRecentEntry{}.id) {
			t.Fatalf("get(%q) = %d: too long to be held", id, got)
		}
	}
	if held == 0 {
		t.Fatal("nothing was ever held")
	}
}
