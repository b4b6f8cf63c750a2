package compositor

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// A tick's time in the feed is within half a microsecond of k/fps, for
// every frame rate clapper renders, over hours of video: the fps filter
// (which rounds to the nearest tick) puts every frame on its own tick.
func TestTickTimeIsOnTheGrid(t *testing.T) {
	for _, fps := range []int{10, 15, 24, 25, 30, 50, 60} {
		for k := 0; k < 60*60*fps*3; k += 1 + k/1000 {
			exact := float64(k) * 1e6 / float64(fps) // µs
			if d := float64(tickTime(k, fps)) - exact; d > 0.5 || d < -0.5 {
				t.Fatalf("fps %d tick %d: %d µs, want %.3f", fps, k, tickTime(k, fps), exact)
			}
		}
	}
}

// readClusters returns the timecode and picture of each cluster of a feed
// stream, after checking it opens with the EBML header and a segment.
func readClusters(t *testing.T, b []byte) (times []uint64, pics [][]byte) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte{0x1A, 0x45, 0xDF, 0xA3}) {
		t.Fatalf("no EBML header: % x", b[:min(8, len(b))])
	}
	i := bytes.Index(b, []byte{0x18, 0x53, 0x80, 0x67})
	if i < 0 {
		t.Fatal("no segment")
	}
	b = b[i+4+8:]
	for len(b) > 0 {
		id, size, body := element(t, b)
		b = b[len(b)-len(body)+int(size):]
		if id != idCluster {
			continue
		}
		body = body[:size]
		tid, tsize, tbody := element(t, body)
		if tid != idTimecode || tsize != 8 {
			t.Fatalf("cluster opens with %x (%d bytes), want its timecode", tid, tsize)
		}
		times = append(times, binary.BigEndian.Uint64(tbody[:8]))
		rest := tbody[8:]
		bid, bsize, bbody := element(t, rest)
		if bid != idSimpleBlock {
			t.Fatalf("cluster holds %x, want a simple block", bid)
		}
		if !bytes.HasPrefix(bbody, []byte{0x81, 0, 0, 0x80}) {
			t.Fatalf("block header % x, want track 1 at the cluster's time, a key frame", bbody[:4])
		}
		pics = append(pics, bbody[4:bsize])
	}
	return times, pics
}

// element reads one element written by ebml (ids of 1 to 4 bytes, sizes
// in 8 bytes).
func element(t *testing.T, b []byte) (id uint32, size uint64, body []byte) {
	t.Helper()
	n := 1
	switch {
	case b[0]&0x80 != 0:
		n = 1
	case b[0]&0x40 != 0:
		n = 2
	case b[0]&0x20 != 0:
		n = 3
	default:
		n = 4
	}
	for _, c := range b[:n] {
		id = id<<8 | uint32(c)
	}
	if b[n] != 0x01 {
		t.Fatalf("element %x: size not in 8 bytes (% x)", id, b[n])
	}
	var s [8]byte
	copy(s[1:], b[n+1:n+8])
	return id, binary.BigEndian.Uint64(s[:]), b[n+8:]
}

// Each run is sent once, at its first tick; the stream closes with the last
// picture again one tick past the end; a feed with nothing to send stays
// empty.
func TestFeedSendsEachRunOnce(t *testing.T) {
	var buf bytes.Buffer
	f := newFeed(&buf, 30)
	pics := [][]byte{[]byte("first"), []byte("second"), []byte("third")}
	counts := []int{1, 3, 2}
	for i, p := range pics {
		if err := f.frame(f.ticks, p); err != nil {
			t.Fatal(err)
		}
		f.ticks += counts[i]
		f.last = p
	}
	if err := f.close(); err != nil {
		t.Fatal(err)
	}
	times, got := readClusters(t, buf.Bytes())
	want := []uint64{tickTime(0, 30), tickTime(1, 30), tickTime(4, 30), tickTime(6, 30)}
	if len(times) != len(want) {
		t.Fatalf("%d clusters, want %d", len(times), len(want))
	}
	for i := range want {
		wantPic := pics[min(i, len(pics)-1)]
		if times[i] != want[i] || !bytes.Equal(got[i], wantPic) {
			t.Errorf("cluster %d: at %d µs with %q, want %d µs with %q", i, times[i], got[i], want[i], wantPic)
		}
	}
	var empty bytes.Buffer
	if err := newFeed(&empty, 30).close(); err != nil || empty.Len() != 0 {
		t.Errorf("an empty feed wrote %d bytes (err %v)", empty.Len(), err)
	}
}
