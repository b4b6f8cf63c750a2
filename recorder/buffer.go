package recorder

// Buffer is the bounded FIFO between capture and the spool writer, bounded
// by frame count and by bytes. Push evicts the oldest items to make room and
// returns how many it evicted. It is pure (no locking); Capture guards it.
type Buffer[T any] struct {
	MaxItems int
	MaxBytes int64
	items    []T
	sizes    []int64
	head     int
	bytes    int64
}

// Len returns the number of queued items.
func (b *Buffer[T]) Len() int { return len(b.items) - b.head }

// Bytes returns the queued bytes.
func (b *Buffer[T]) Bytes() int64 { return b.bytes }

// Push appends v of the given size, evicting the oldest items while the
// bounds are exceeded. An item larger than MaxBytes on its own evicts
// everything else and is itself evicted. It returns the evicted items.
func (b *Buffer[T]) Push(v T, size int64) (evicted []T) {
	b.items = append(b.items, v)
	b.sizes = append(b.sizes, size)
	b.bytes += size
	for b.Len() > 0 && ((b.MaxItems > 0 && b.Len() > b.MaxItems) || (b.MaxBytes > 0 && b.bytes > b.MaxBytes)) {
		evicted = append(evicted, b.pop())
	}
	b.compact()
	return evicted
}

// Pop removes and returns the oldest item.
func (b *Buffer[T]) Pop() (T, bool) {
	if b.Len() == 0 {
		var zero T
		return zero, false
	}
	v := b.pop()
	b.compact()
	return v, true
}

func (b *Buffer[T]) pop() T {
	var zero T
	v := b.items[b.head]
	b.items[b.head] = zero
	b.bytes -= b.sizes[b.head]
	b.head++
	return v
}

// compact drops consumed slots so the backing arrays stay bounded.
func (b *Buffer[T]) compact() {
	if b.head == 0 || b.head < len(b.items)/2 {
		if b.head == len(b.items) {
			b.items, b.sizes, b.head = b.items[:0], b.sizes[:0], 0
		}
		return
	}
	n := copy(b.items, b.items[b.head:])
	copy(b.sizes, b.sizes[b.head:])
	var zero T
	for i := n; i < len(b.items); i++ {
		b.items[i] = zero
	}
	b.items, b.sizes, b.head = b.items[:n], b.sizes[:n], 0
}
