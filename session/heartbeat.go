package session

import (
	"time"

	"github.com/clapper-dev/clapper/leases"
)

// minBeat bounds how often the heartbeat refreshes, whatever the TTL.
const minBeat = 50 * time.Millisecond

// beatEvery is how often a run refreshes its leases: three times per TTL,
// so one late beat still leaves the lease fresh. Pure.
func beatEvery(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		ttl = leases.DefaultTTL
	}
	return max(ttl/3, minBeat)
}

// heartbeat is the goroutine that keeps a live run's leases fresh between
// steps: a single step longer than the TTL (a long pause or wait) must not
// lose the tabs of a run that is still working. It refreshes through the
// store like a step's use does (the lease's last use), so a run that is
// killed stops beating and its leases go stale by the same rules as ever.
// sharedTabs owns it: it starts with the first lease held and is stopped
// and waited for when the last one is given back.
type heartbeat struct {
	stop chan struct{}
	done chan struct{}
}

// startBeat starts the heartbeat unless it runs. Called with t.mu held.
func (t *sharedTabs) startBeat() {
	if t.beat != nil {
		return
	}
	hb := &heartbeat{stop: make(chan struct{}), done: make(chan struct{})}
	t.beat = hb
	go t.beating(hb, beatEvery(t.o.TTL))
}

// stopBeat stops the heartbeat when no lease is held any more, and
// returns what to wait for (nil when nothing). Called with t.mu held.
func (t *sharedTabs) stopBeat() *heartbeat {
	if t.beat == nil || len(t.held) > 0 {
		return nil
	}
	hb := t.beat
	t.beat = nil
	close(hb.stop)
	return hb
}

func (t *sharedTabs) beating(hb *heartbeat, every time.Duration) {
	defer close(hb.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-hb.stop:
			return
		case <-tick.C:
		}
		for _, h := range t.heldNow() {
			c := t.self
			c.Token = h.token
			// A lease lost or refused is not ours to act on here: the next
			// step's check refuses it, with nothing sent.
			_, _ = t.o.Store.Check(h.id, c)
		}
	}
}

// heldNow is a copy of the leases held, for the heartbeat.
func (t *sharedTabs) heldNow() []heldTab {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]heldTab, 0, len(t.held))
	for _, h := range t.held {
		out = append(out, h)
	}
	return out
}
