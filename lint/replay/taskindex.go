package replay

import (
	"bytes"
	"hash/maphash"
)

// taskIndex finds a BASE row by task_id (D4: is the task in the ledger?)
// for the decoding workers, which share it read-only. It is built once from
// BASE's rows (the first row of a task_id wins, as in ledger.index) and
// kept compact so that a lookup touches two small arrays rather than a Go
// map's buckets and the key strings spread over the rows: the ids' bytes in
// one arena, and an open-addressing table (linear probing, load ≤ 1/2) of
// 8-byte slots, 32 bits of the id's hash and the row.
type taskIndex struct {
	seed  maphash.Seed
	arena []byte
	ends  []int32  // row k's id is arena[start(k):ends[k]], for the rows indexed
	rows  []int32  // the row of each indexed id
	slots []uint64 // 0: empty; otherwise hash>>32<<32 | indexed id + 1
}

// newTaskIndex indexes the task_ids of rows.
func newTaskIndex(rows []*row) *taskIndex {
	t := &taskIndex{seed: maphash.MakeSeed()}
	n := 16
	for n < 2*len(rows) {
		n *= 2
	}
	t.slots = make([]uint64, n)
	for i, r := range rows {
		id := []byte(r.taskID)
		h := maphash.Bytes(t.seed, id)
		j, found := t.find(id, h)
		if found {
			continue
		}
		t.arena = append(t.arena, id...)
		t.ends = append(t.ends, int32(len(t.arena)))
		t.rows = append(t.rows, int32(i))
		t.slots[j] = h>>32<<32 | uint64(len(t.rows))
	}
	return t
}

// key returns indexed id k.
func (t *taskIndex) key(k int) []byte {
	lo := int32(0)
	if k > 0 {
		lo = t.ends[k-1]
	}
	return t.arena[lo:t.ends[k]]
}

// find returns the slot of id (hash h), or the empty slot where it goes.
func (t *taskIndex) find(id []byte, h uint64) (int, bool) {
	mask := len(t.slots) - 1
	for j := int(h) & mask; ; j = (j + 1) & mask {
		e := t.slots[j]
		if e == 0 {
			return j, false
		}
		if e>>32 == h>>32 && bytes.Equal(t.key(int(uint32(e))-1), id) {
			return j, true
		}
	}
}

// lookup returns the row of taskID, or -1.
func (t *taskIndex) lookup(taskID []byte) int {
	j, ok := t.find(taskID, maphash.Bytes(t.seed, taskID))
	if !ok {
		return -1
	}
	return int(t.rows[uint32(t.slots[j])-1])
}
