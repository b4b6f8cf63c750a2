package recorder

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

func TestStreakSaysWhenToRestart(t *testing.T) {
	ms := func(v float64) timeline.Time { return timeline.Time(v * float64(time.Millisecond)) }
	every := func(from, to, step float64) []float64 {
		var out []float64
		for v := from; v <= to+1e-9; v += step {
			out = append(out, v)
		}
		return out
	}
	cases := []struct {
		name   string
		frames []float64 // source times, ms
		want   []float64 // the frames after which a restart is due
	}{
		{"steady frames restart after 750 ms, then 750 ms after the next", every(0, 2000, 20), []float64{760, 1540}},
		{"a still page never restarts", []float64{0, 400, 800, 1200, 1600}, nil},
		// A pause of 250 ms or more ends the streak: the capturer forgets too.
		{"a pause starts the streak again", append(every(0, 600, 50), every(850, 1700, 50)...), []float64{1600}},
		{"a pause just under 250 ms does not", append(every(0, 500, 50), every(749, 800, 50)...), []float64{799}},
		// A frame that comes late (reordered) neither ends nor moves it.
		{"a late frame", []float64{0, 100, 50, 200, 300, 400, 500, 600, 700, 760}, []float64{760}},
		{"restarted: the next frame begins a streak", append(every(0, 750, 50), every(800, 1550, 50)...), []float64{750, 1550}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s streak
			var got []float64
			for _, f := range c.frames {
				if s.frame(ms(f)) {
					got = append(got, f)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("restarts after %v, want %v", got, c.want)
			}
			for i := range got {
				if d := got[i] - c.want[i]; d > 0.5 || d < -0.5 {
					t.Fatalf("restarts after %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestRetryStart: a screencast start refused for a moment (a navigation
// swapping the page) is tried again after each backoff; one refused
// throughout fails with its last error after them all; a capture stopping
// meanwhile ends the tries.
func TestRetryStart(t *testing.T) {
	refused := errors.New("Not attached to an active page")
	for _, c := range []struct {
		name     string
		failures int  // starts refused before one succeeds
		stopAt   int  // the wait that finds the capture stopping (0: none)
		wantErr  bool // the start gives up
		tries    int
	}{
		{"at once", 0, 0, false, 1},
		{"after two refusals", 2, 0, false, 3},
		{"on the last try", len(startBackoff), 0, false, len(startBackoff) + 1},
		{"never", 100, 0, true, len(startBackoff) + 1},
		{"stopping", 100, 2, true, 2},
	} {
		tries, waits := 0, 0
		var waited []time.Duration
		err := retryStart(func() error {
			tries++
			if tries <= c.failures {
				return refused
			}
			return nil
		}, refusal, func(d time.Duration) bool {
			waits++
			waited = append(waited, d)
			return waits != c.stopAt
		})
		if (err != nil) != c.wantErr || c.wantErr && !errors.Is(err, refused) || tries != c.tries {
			t.Errorf("%s: err %v after %d tries, want error %v after %d", c.name, err, tries, c.wantErr, c.tries)
		}
		if !slices.Equal(waited, startBackoff[:len(waited)]) {
			t.Errorf("%s: waited %v, want the backoff's first %d", c.name, waited, len(waited))
		}
	}
	tries := 0
	timedOut := fmt.Errorf("call: %w", context.DeadlineExceeded)
	if err := retryStart(func() error { tries++; return timedOut }, refusal, func(time.Duration) bool { return true }); !errors.Is(err, context.DeadlineExceeded) || tries != 1 {
		t.Errorf("a start that timed out: %d tries, %v; want one, not tried again", tries, err)
	}
	var total time.Duration
	for _, d := range startBackoff {
		total += d
	}
	if total < time.Second {
		t.Errorf("the tries span %v: shorter than a navigation's swap of the page", total)
	}
}

// The acker sends acks without waiting for the answers before them, up to
// its pipeline's depth, sends every one queued, and returns once stop
// cuts the ones on their way short, counting no error for them.
func TestAckerPipelines(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ended atomic.Bool
	a := newAcker(ctx, 3, &ended)
	var mu sync.Mutex
	sent, on, most := map[int64]bool{}, 0, 0
	release := make(chan struct{})
	setSend := func(send func(ctx context.Context, id int64) error) {
		a.mu.Lock()
		a.send = send
		a.mu.Unlock()
	}
	setSend(func(ctx context.Context, id int64) error {
		mu.Lock()
		sent[id] = true
		on++
		most = max(most, on)
		mu.Unlock()
		defer func() {
			mu.Lock()
			on--
			mu.Unlock()
		}()
		select {
		case <-release: // answered
			return nil
		case <-ctx.Done(): // cut short
			return ctx.Err()
		}
	})
	queue := func(from, to int64) {
		for id := from; id < to; id++ {
			a.add(0, id)
		}
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			mu.Lock()
			done := ok()
			mu.Unlock()
			if done {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waited 5 s for %s: %d sent, %d on their way, at most %d", what, len(sent), on, most)
			}
		}
	}
	// No answer comes: as many acks go as the pipeline holds, no more.
	queue(0, 20)
	waitFor("a full pipeline", func() bool { return on == ackPipeline })
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	if most != ackPipeline || len(sent) != ackPipeline {
		t.Errorf("unanswered: %d acks sent, at most %d at once; want %d", len(sent), most, ackPipeline)
	}
	mu.Unlock()
	// Answers come: every queued ack is sent.
	close(release)
	waitFor("every ack", func() bool { return len(sent) == 20 && on == 0 })
	// Stop: the acker returns with acks on their way cut short, uncounted.
	setSend(func(ctx context.Context, id int64) error {
		mu.Lock()
		sent[id] = true
		mu.Unlock()
		<-ctx.Done() // never answered
		return ctx.Err()
	})
	queue(20, 23)
	waitFor("the last acks", func() bool { return len(sent) == 23 })
	done := make(chan struct{})
	go func() { a.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the acker did not return after Stop's cancel")
	}
	if n, errs := a.acks.Load(), a.errs.Load(); n != 23 || errs != 0 {
		t.Errorf("%d acks timed, %d errors; want 23 and none (the cut ones are Stop's)", n, errs)
	}
}
