package procfs

import (
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Faults is what a fresh page of memory costs a process on this machine,
// per 4 KiB: of its own (anonymous) memory, and of memory it shares with
// another process (a memfd, as Chromium's processes share pictures).
type Faults struct {
	Anon, Shared time.Duration
}

// Worst is the dearer of the two.
func (f Faults) Worst() time.Duration { return max(f.Anon, f.Shared) }

// PageFaultCost measures Faults: the time from touching a page never
// touched before to having it, the median of a few rounds over a 16 MiB
// mapping of each kind.
//
// It sets how fast Chromium can capture: Chromium allocates fresh
// buffers for each picture it reads back, hands over, copies and encodes
// (about 30 MiB a frame at 2560x1440) and gives them back to the system
// after, so every frame pays for thousands of page faults. Where the
// hypervisor traps each fault, a fault costs ten microseconds instead of
// a fraction of one, and the same capture takes 3 to 4.5 times as long;
// transparent huge pages, for both kinds, take much of that back, most
// at device scale 2 (docs/internals.md, "Slow page faults").
func PageFaultCost() (Faults, error) {
	anon, err := faultCost(func() (int, error) { return -1, nil }, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return Faults{}, err
	}
	shared, err := faultCost(func() (int, error) {
		fd, err := unix.MemfdCreate("clapper-fault-probe", unix.MFD_CLOEXEC)
		if err != nil {
			return -1, err
		}
		if err := unix.Ftruncate(fd, faultProbeSize); err != nil {
			unix.Close(fd)
			return -1, err
		}
		return fd, nil
	}, unix.MAP_SHARED)
	return Faults{Anon: anon, Shared: shared}, err
}

const faultProbeSize = 16 << 20

// faultCost maps faultProbeSize bytes of open()'s file (-1: none) a few
// times, touches each page and returns the median cost per 4 KiB.
func faultCost(open func() (int, error), flags int) (time.Duration, error) {
	const rounds = 5
	page := unix.Getpagesize()
	per := make([]time.Duration, 0, rounds)
	for range rounds {
		fd, err := open()
		if err != nil {
			return 0, err
		}
		m, err := unix.Mmap(fd, 0, faultProbeSize, unix.PROT_READ|unix.PROT_WRITE, flags)
		if fd >= 0 {
			unix.Close(fd)
		}
		if err != nil {
			return 0, err
		}
		start := time.Now()
		for i := 0; i < faultProbeSize; i += page {
			m[i] = 1
		}
		d := time.Since(start)
		if err := unix.Munmap(m); err != nil {
			return 0, err
		}
		per = append(per, d*4096/faultProbeSize)
	}
	slices.Sort(per)
	return per[rounds/2], nil
}
