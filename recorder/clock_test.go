package recorder

import (
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

func TestMeasureWallOffsetKeepsTightestBracket(t *testing.T) {
	// Monotonic readings in pairs around each wall reading: brackets of
	// 1000, 40 and 400 ns. The wall clock is monotonic + 5e9 exactly.
	monos := []int64{1000, 2000, 5000, 5040, 9000, 9400}
	var mi int
	mono := func() int64 { v := monos[mi]; mi++; return v }
	walls := []int64{1500 - 5e9, 5020 - 5e9, 9200 - 5e9}
	var wi int
	wall := func() int64 { v := walls[wi]; wi++; return v }
	got := measureWallOffset(3, mono, wall)
	if got.Offset != 5e9 || got.Error != 20 {
		t.Errorf("got %+v, want offset 5e9 ± 20", got)
	}
}

func TestMeasureWallOffsetReal(t *testing.T) {
	o := MeasureWallOffset(8)
	if o.Error < 0 {
		t.Fatalf("negative error %+v", o)
	}
	// A wall reading taken between two monotonic readings maps inside
	// them, give or take the error bound.
	m1 := Monotonic()
	w := wallNanos()
	m2 := Monotonic()
	if got := w + o.Offset; got < m1-o.Error || got > m2+o.Error {
		t.Errorf("offset %+v maps wall %d to %d, outside [%d, %d]", o, w, got, m1, m2)
	}
}

func TestSecondsToNanos(t *testing.T) {
	cases := []struct {
		sec  float64
		want int64
	}{
		{0, 0},
		{1.5, 1_500_000_000},
		{12345.000000001, 12345_000_000_001},
		{1_700_000_000.25, 1_700_000_000_250_000_000},
	}
	for _, c := range cases {
		if got := secondsToNanos(c.sec); got != c.want {
			t.Errorf("secondsToNanos(%v) = %d, want %d", c.sec, got, c.want)
		}
	}
}

func TestClockMappings(t *testing.T) {
	c := &Clock{Origin: 1_000_000_000_000, Offset: WallOffset{Offset: -1_700_000_000_000_000_000, Error: 300}}
	// A monotonic reading 2.5 s after the origin.
	if got := c.FromMonotonic(1002.5); got != timeline.Time(2500*time.Millisecond) {
		t.Errorf("FromMonotonic: %v", got)
	}
	// The wall time of that same instant: monotonic - offset.
	wallSec := float64(1_000_000_000_000+2_500_000_000+1_700_000_000_000_000_000) / 1e9
	if got := c.FromWall(wallSec); got < timeline.Time(2500*time.Millisecond-time.Microsecond) || got > timeline.Time(2500*time.Millisecond+time.Microsecond) {
		t.Errorf("FromWall: %v, want 2.5s within the float's precision", got)
	}
	mono := c.Info(timeline.MappingMonotonic)
	if mono.Mapping != timeline.MappingMonotonic || mono.OffsetNs != 0 || mono.ErrorNs != 0 || mono.Origin != c.Origin {
		t.Errorf("monotonic info %+v", mono)
	}
	wall := c.Info(timeline.MappingWallOffset)
	if wall.OffsetNs != c.WallToTake() || wall.ErrorNs != 300+wallQuantum {
		t.Errorf("wall-offset info %+v", wall)
	}
}

func TestNewClockWallAgrees(t *testing.T) {
	// The clock's wall time at its origin lies between wall readings taken
	// before and after it starts, give or take the measured error: an
	// order, whatever the machine's load.
	before := wallNanos()
	c := NewClock()
	after := wallNanos()
	if w := c.Wall.UnixNano(); w < before-c.Offset.Error || w > after+c.Offset.Error {
		t.Errorf("clock wall %v outside [%v, %v] ± %d ns", c.Wall, time.Unix(0, before), time.Unix(0, after), c.Offset.Error)
	}
	// A wall reading between two take-clock readings maps between them,
	// give or take the measured error.
	t1 := c.Now()
	w := wallNanos()
	t2 := c.Now()
	e := timeline.Time(c.Offset.Error)
	if got := timeline.Time(w + c.WallToTake()); got < t1-e || got > t2+e {
		t.Errorf("wall maps to %v, outside [%v, %v] ± %d ns", got, t1, t2, e)
	}
}
