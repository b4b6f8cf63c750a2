package compositor

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// chunk is a range of output ticks [First, First+Count) encoded by one
// ffmpeg run; a chunked video is its chunks joined without re-encoding.
type chunk struct {
	First, Count int
}

// chunkSeconds is a chunk's length in output time, after the first
// shortChunks chunks of one second each. Rendering while capturing, a
// chunk is made once the take is known past its end: on a short take (a
// few seconds, as the quickstart's) two-second chunks settle too late to be
// made before the take ends, and the whole video is rendered after it;
// one-second chunks throughout cost a longer render more, as each ffmpeg
// run has its start-up.
const (
	chunkSeconds = 2
	shortChunks  = 4
)

// planChunks cuts ticks output ticks at fps into chunks: shortChunks of
// one second, then chunkSeconds each (the last one shorter), and the last
// one, when it is half a second or more, in two halves. Pure: the same
// take and settings always give the same chunks, whichever path renders
// them, and a chunk's place does not depend on the take's length, but for
// the halves of the last one. The last
// chunk is never made while capturing (it is not whole, or, split, its
// halves are not: wholeChunks), so it is what the final render waits for
// after the last step: halved, the two workers share it.
func planChunks(ticks, fps int) []chunk {
	if ticks <= 0 || fps <= 0 {
		return nil
	}
	var out []chunk
	for k := 0; k < ticks; {
		n := chunkLen(len(out), fps)
		out = append(out, chunk{First: k, Count: min(n, ticks-k)})
		k += n
	}
	if last := out[len(out)-1]; last.Count >= 2 && 2*last.Count >= fps {
		h := (last.Count + 1) / 2
		out = append(out[:len(out)-1], chunk{last.First, h}, chunk{last.First + h, last.Count - h})
	}
	return out
}

// chunkLen is the length in ticks of chunk i, whole. Pure.
func chunkLen(i, fps int) int {
	if i < shortChunks {
		return fps
	}
	return chunkSeconds * fps
}

// wholeChunks is how many chunks lie wholly within the first ticks ticks
// at fps. Pure.
func wholeChunks(ticks, fps int) int {
	n := 0
	for i, c := range planChunks(ticks, fps) {
		if c.Count == chunkLen(i, fps) {
			n++
		}
	}
	return n
}

// readASSTime reads an ASS time (H:MM:SS.cc).
func readASSTime(s string) (time.Duration, bool) {
	var h, m, sec, cs int
	if n, err := fmt.Sscanf(s, "%d:%d:%d.%d", &h, &m, &sec, &cs); err != nil || n != 4 {
		return 0, false
	}
	return time.Duration(((h*60+m)*60+sec)*100+cs) * 10 * time.Millisecond, true
}

// cutASS copies the ASS script from r to w keeping only the events shown
// in the output interval [from, to): its header whole, each Dialogue that
// overlaps the interval, with an end past to moved to to. A start is never
// moved (a ripple's animation counts from its start); an end is moved only
// past the interval, so what is drawn inside it is unchanged, and two
// scripts that differ only after to cut to the same bytes.
func cutASS(r io.Reader, w io.Writer, from, to time.Duration) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	bw := bufio.NewWriter(w)
	end := assTime(to)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "Dialogue: "); ok {
			f := strings.SplitN(rest, ",", 4)
			if len(f) < 4 {
				return fmt.Errorf("overlay script: bad event %q", line)
			}
			a, ok1 := readASSTime(f[1])
			b, ok2 := readASSTime(f[2])
			if !ok1 || !ok2 {
				return fmt.Errorf("overlay script: bad event time in %q", line)
			}
			if b <= from || a >= to {
				continue
			}
			if b > to {
				f[2] = end
			}
			line = "Dialogue: " + strings.Join(f, ",")
		}
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// cut returns the camera for ticks [c.First, c.First+c.Count) counted from
// the chunk's first tick: the segments that decide those ticks, shifted.
// A chunk of a track that is active anywhere is active (zoompan runs in
// every chunk, as in one run over the whole video).
func (zt *ZoomTrack) cut(c chunk) *ZoomTrack {
	out := &ZoomTrack{base: zt.base}
	if !zt.Active() {
		return out
	}
	a, b := c.First, c.First+c.Count
	for i, sg := range zt.segs {
		if sg.K0 >= b {
			break
		}
		if i+1 < len(zt.segs) && zt.segs[i+1].K0 <= a {
			continue // superseded before the chunk starts
		}
		sg.K0 -= a
		sg.K1 -= a
		out.segs = append(out.segs, sg)
	}
	if len(out.segs) == 0 {
		// Still on the base: one segment that holds it.
		out.segs = []zoomSeg{{From: zt.base, To: zt.base}}
	}
	return out
}

// whole reports whether the camera of zt shows the whole picture at every
// tick: at zoom 1 before its segments and from each one's start to its
// end, wherever its centre (zoompan clamps a zoom-1 crop to the whole
// picture). A segment that eases back to 1 is not whole even after it
// ends: its expression is computed there, not the constant 1. A chunk whose cut
// camera is whole is rendered as an unzoomed one (prepareChunk): zoompan at
// zoom 1 scales with the same scaler as the unzoomed path, to the bit
// (TestWholeCameraChunksSameVideo). Pure.
func (zt *ZoomTrack) whole() bool {
	if zt == nil {
		return true
	}
	if zt.base.Z != 1 {
		return false
	}
	for _, sg := range zt.segs {
		if sg.From.Z != 1 || sg.To.Z != 1 {
			return false
		}
	}
	return true
}
