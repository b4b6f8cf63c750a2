package recorder

import (
	"slices"
	"testing"
)

func TestBufferFIFO(t *testing.T) {
	var b Buffer[int]
	for i := 0; i < 5; i++ {
		if ev := b.Push(i, 1); len(ev) != 0 {
			t.Fatalf("unbounded buffer evicted %v", ev)
		}
	}
	for i := 0; i < 5; i++ {
		v, ok := b.Pop()
		if !ok || v != i {
			t.Fatalf("pop %d: %v %v", i, v, ok)
		}
	}
	if _, ok := b.Pop(); ok || b.Len() != 0 || b.Bytes() != 0 {
		t.Errorf("empty buffer: len %d bytes %d", b.Len(), b.Bytes())
	}
}

func TestBufferCountBound(t *testing.T) {
	b := Buffer[int]{MaxItems: 3}
	var evicted []int
	for i := 0; i < 7; i++ {
		evicted = append(evicted, b.Push(i, 10)...)
		if b.Len() > 3 {
			t.Fatalf("len %d over the bound", b.Len())
		}
	}
	if !slices.Equal(evicted, []int{0, 1, 2, 3}) {
		t.Errorf("evicted %v, want the oldest first", evicted)
	}
	var left []int
	for b.Len() > 0 {
		v, _ := b.Pop()
		left = append(left, v)
	}
	if !slices.Equal(left, []int{4, 5, 6}) || b.Bytes() != 0 {
		t.Errorf("left %v, bytes %d", left, b.Bytes())
	}
}

func TestBufferByteBound(t *testing.T) {
	b := Buffer[string]{MaxBytes: 100}
	b.Push("a", 40)
	b.Push("b", 40)
	if ev := b.Push("c", 30); !slices.Equal(ev, []string{"a"}) || b.Bytes() != 70 || b.Len() != 2 {
		t.Fatalf("evicted %v, bytes %d, len %d", ev, b.Bytes(), b.Len())
	}
	if ev := b.Push("d", 30); len(ev) != 0 || b.Bytes() != 100 {
		t.Fatalf("exactly at the bound: evicted %v, bytes %d", ev, b.Bytes())
	}
	// An item larger than the bound evicts everything, itself included.
	if ev := b.Push("huge", 101); !slices.Equal(ev, []string{"b", "c", "d", "huge"}) || b.Len() != 0 || b.Bytes() != 0 {
		t.Fatalf("oversized item: evicted %v, len %d, bytes %d", ev, b.Len(), b.Bytes())
	}
	b.Push("e", 10)
	if v, ok := b.Pop(); !ok || v != "e" || b.Bytes() != 0 {
		t.Errorf("after an oversized item: %v %v, bytes %d", v, ok, b.Bytes())
	}
}

func TestBufferBothBounds(t *testing.T) {
	b := Buffer[int]{MaxItems: 4, MaxBytes: 50}
	var evicted []int
	for i, size := range []int64{10, 10, 10, 10, 10, 30} {
		evicted = append(evicted, b.Push(i, size)...)
	}
	// The count bound evicts 0 at the fifth push; the sixth pushes bytes
	// to 70, evicting 1 and 2.
	if !slices.Equal(evicted, []int{0, 1, 2}) || b.Len() != 3 || b.Bytes() != 50 {
		t.Errorf("evicted %v, len %d, bytes %d", evicted, b.Len(), b.Bytes())
	}
}

// Interleaved pushes and pops keep order and do not let the backing arrays
// grow with the total pushed.
func TestBufferCompacts(t *testing.T) {
	b := Buffer[int]{MaxItems: 16}
	next, want := 0, 0
	for round := 0; round < 10000; round++ {
		for i := 0; i < 3; i++ {
			if ev := b.Push(next, 1); len(ev) != 0 {
				t.Fatalf("evicted %v", ev)
			}
			next++
		}
		for i := 0; i < 3; i++ {
			v, ok := b.Pop()
			if !ok || v != want {
				t.Fatalf("pop: %v %v, want %d", v, ok, want)
			}
			want++
		}
	}
	if cap(b.items) > 64 || cap(b.sizes) > 64 {
		t.Errorf("backing arrays grew to %d/%d items", cap(b.items), cap(b.sizes))
	}
}
