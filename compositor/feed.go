package compositor

import (
	"context"
	"encoding/binary"
	"io"

	"github.com/clapper-dev/clapper/timeline"
)

// The feed: how captured frames reach ffmpeg.
//
// A run of output ticks that show one capture frame is sent once, stamped
// with the time of its first tick, in a minimal Matroska stream on
// ffmpeg's stdin (one MJPEG track, one cluster per run). ffmpeg decodes
// and scales each capture frame once, and its fps filter repeats it for
// the run's ticks. Sending the JPEG once per tick instead made ffmpeg
// decode and scale it again for every tick, several times the CPU a tick
// where frames repeat. The stream ends with the last frame once more, one
// tick past the end, so that the last run holds for all its ticks
// whatever the fps filter does at the end of its input; the graph trims
// that tick (buildArgs).

// feedTimescale is the stream's time unit (Matroska's TimecodeScale, in
// ns): microseconds, so that a tick's time is within half a microsecond
// of k/fps and the fps filter puts every frame on its own tick.
const feedTimescale = 1000

// feed writes runs of frames to ffmpeg as a Matroska stream.
type feed struct {
	w      io.Writer
	fps    int
	ticks  int    // output ticks written so far
	last   []byte // the last run's picture, for the closing frame
	header bool
	buf    []byte
}

func newFeed(w io.Writer, fps int) *feed { return &feed{w: w, fps: fps} }

// ebml appends element id with its body, the size written in 8 bytes.
func ebml(b []byte, id uint32, body []byte) []byte {
	b = appendID(b, id)
	b = append(b, 0x01)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(body)))
	b = append(b, n[1:]...)
	return append(b, body...)
}

func appendID(b []byte, id uint32) []byte {
	switch {
	case id >= 1<<24:
		return append(b, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
	case id >= 1<<16:
		return append(b, byte(id>>16), byte(id>>8), byte(id))
	case id >= 1<<8:
		return append(b, byte(id>>8), byte(id))
	default:
		return append(b, byte(id))
	}
}

func ebmlUint(b []byte, id uint32, v uint64) []byte {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], v)
	return ebml(b, id, n[:])
}

// Matroska element ids.
const (
	idEBML, idEBMLVersion, idEBMLReadVersion       = 0x1A45DFA3, 0x4286, 0x42F7
	idEBMLMaxIDLength, idEBMLMaxSizeLength         = 0x42F2, 0x42F3
	idDocType, idDocTypeVersion, idDocTypeReadVers = 0x4282, 0x4287, 0x4285
	idSegment, idInfo, idTimecodeScale             = 0x18538067, 0x1549A966, 0x2AD7B1
	idMuxingApp, idWritingApp                      = 0x4D80, 0x5741
	idTracks, idTrackEntry, idTrackNumber          = 0x1654AE6B, 0xAE, 0xD7
	idTrackUID, idTrackType, idCodecID             = 0x73C5, 0x83, 0x86
	idCluster, idTimecode, idSimpleBlock           = 0x1F43B675, 0xE7, 0xA3
)

// streamHeader is the stream's start: the EBML header, a segment of
// unknown size (written as it goes), its info and its one MJPEG track.
func streamHeader() []byte {
	var h []byte
	h = ebmlUint(h, idEBMLVersion, 1)
	h = ebmlUint(h, idEBMLReadVersion, 1)
	h = ebmlUint(h, idEBMLMaxIDLength, 4)
	h = ebmlUint(h, idEBMLMaxSizeLength, 8)
	h = ebml(h, idDocType, []byte("matroska"))
	h = ebmlUint(h, idDocTypeVersion, 4)
	h = ebmlUint(h, idDocTypeReadVers, 2)
	b := ebml(nil, idEBML, h)
	b = appendID(b, idSegment)
	b = append(b, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF) // unknown size
	var info []byte
	info = ebmlUint(info, idTimecodeScale, feedTimescale)
	info = ebml(info, idMuxingApp, []byte("clapper"))
	info = ebml(info, idWritingApp, []byte("clapper"))
	b = ebml(b, idInfo, info)
	var track []byte
	track = ebmlUint(track, idTrackNumber, 1)
	track = ebmlUint(track, idTrackUID, 1)
	track = ebmlUint(track, idTrackType, 1) // video
	track = ebml(track, idCodecID, []byte("V_MJPEG"))
	return ebml(b, idTracks, ebml(nil, idTrackEntry, track))
}

// tickTime is output tick k's time in the stream's unit. Pure.
func tickTime(k, fps int) uint64 {
	return uint64((int64(k)*int64(1e9/feedTimescale) + int64(fps)/2) / int64(fps))
}

// frame writes one picture shown from output tick k on.
func (f *feed) frame(k int, pic []byte) error {
	if !f.header {
		f.header = true
		if _, err := f.w.Write(streamHeader()); err != nil {
			return err
		}
	}
	block := append(f.buf[:0], 0x81, 0, 0, 0x80) // track 1, at the cluster's time, a key frame
	block = append(block, pic...)
	var body []byte
	body = ebmlUint(body, idTimecode, tickTime(k, f.fps))
	body = ebml(body, idSimpleBlock, block)
	out := ebml(nil, idCluster, body)
	f.buf = block
	_, err := f.w.Write(out)
	return err
}

// run writes run's frame once, for its ticks. An error reading the take is
// a feedError.
func (f *feed) run(ctx context.Context, tk *timeline.Take, run Run) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pic, err := tk.ReadFrame(run.Frame)
	if err != nil {
		return feedError{err}
	}
	if err := f.frame(f.ticks, pic); err != nil {
		return err
	}
	f.ticks += run.Count
	f.last = pic
	return nil
}

// close ends the stream with the last picture one tick past the end (see
// above). A feed that wrote nothing writes nothing.
func (f *feed) close() error {
	if f.last == nil {
		return nil
	}
	return f.frame(f.ticks, f.last)
}
