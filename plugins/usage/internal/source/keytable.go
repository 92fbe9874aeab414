package source

import "math/bits"

// keyTable maps a call's dedup key (a nonzero hash) to its place in the
// index: open addressing with linear probing over two flat arrays, 12 bytes
// a slot at a load of at most 3/4. A Go map of the same keys costs more (a
// slot is padded to 16 bytes, tables grow by powers of two), and the cold
// scan's peak memory is mostly this index.
type keyTable struct {
	keys []uint64 // 0: empty slot
	vals []int32
	n    int
}

// newKeyTable returns a table sized for n keys without growing.
func newKeyTable(n int) keyTable {
	slots := max(n+n/3+1, 8)
	return keyTable{keys: make([]uint64, slots), vals: make([]int32, slots)}
}

// slot is where key's probe starts: the key's high bits scaled to the
// table's size (keys are hashes, evenly spread).
func (t *keyTable) slot(key uint64) int {
	hi, _ := bits.Mul64(key*0x9E3779B97F4A7C15, uint64(len(t.keys)))
	return int(hi)
}

// get returns the value stored for key.
func (t *keyTable) get(key uint64) (int32, bool) {
	if len(t.keys) == 0 {
		return 0, false
	}
	for i := t.slot(key); ; {
		switch t.keys[i] {
		case key:
			return t.vals[i], true
		case 0:
			return 0, false
		}
		if i++; i == len(t.keys) {
			i = 0
		}
	}
}

// put stores v for key (nonzero), replacing an earlier value.
func (t *keyTable) put(key uint64, v int32) {
	if (t.n+1)*4 > len(t.keys)*3 {
		t.grow()
	}
	for i := t.slot(key); ; {
		switch t.keys[i] {
		case key:
			t.vals[i] = v
			return
		case 0:
			t.keys[i], t.vals[i] = key, v
			t.n++
			return
		}
		if i++; i == len(t.keys) {
			i = 0
		}
	}
}

// grow doubles the table.
func (t *keyTable) grow() {
	old := *t
	*t = newKeyTable(max(2*old.n, 8))
	for i, k := range old.keys {
		if k != 0 {
			t.put(k, old.vals[i])
		}
	}
}
