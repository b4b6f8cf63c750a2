package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/session"
)

// want checks a verdict: whether it passed, and words its detail and fix
// must hold (a fix only when it failed).
func want(t *testing.T, name string, c Check, ok bool, detail, fix string) {
	t.Helper()
	if c.OK != ok || !strings.Contains(c.Detail, detail) || !strings.Contains(c.Fix, fix) || c.OK != (c.Fix == "") {
		t.Errorf("%s: %+v; want ok=%v, detail with %q, fix with %q", name, c, ok, detail, fix)
	}
}

func TestChromiumCheck(t *testing.T) {
	_, notFound := session.FindChromium("/no/such/chromium")
	c := chromiumCheck(tool{findErr: notFound})
	want(t, "not found", c, false, "not found", "apt-get install chromium")
	if c.Fix != notFound.Error() {
		t.Errorf("not found: fix %q, want the run's own advice %q", c.Fix, notFound)
	}
	want(t, "does not start", chromiumCheck(tool{path: "/usr/bin/chromium", runErr: errors.New("exit status 127")}), false, "does not start", "--chromium PATH")
	want(t, "no version", chromiumCheck(tool{path: "/bin/true", out: "hello\n"}), false, "printed no Chromium version", "--chromium PATH")
	want(t, "too old", chromiumCheck(tool{path: "/old", out: "Chromium 111.0.5563.64\n"}), false, "needs Chromium 112 or later", "upgrade")
	want(t, "Debian's", chromiumCheck(tool{path: "/usr/bin/chromium", out: "Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)\n"}),
		true, "Chromium 156.0.8078.114 at /usr/bin/chromium", "")
	if c := chromiumCheck(tool{path: "/usr/bin/chromium", out: "Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)\n"}); strings.Contains(c.Detail, "built on") {
		t.Errorf("detail %q: want the name and version only", c.Detail)
	}
	want(t, "Chrome", chromiumCheck(tool{path: "/opt/chrome", out: "Google Chrome 112.0.5615.49 \n"}), true, "Google Chrome 112.0.5615.49 at /opt/chrome", "")
}

func TestHeadlessShellCheck(t *testing.T) {
	want(t, "not found", headlessShellCheck(tool{findErr: errors.New("not found")}), false, "not found", "apt-get install chromium-headless-shell")
	want(t, "no version", headlessShellCheck(tool{path: "/x", out: ""}), false, "no version", "apt-get install chromium-headless-shell")
	want(t, "fails", headlessShellCheck(tool{path: "/x", runErr: errors.New("signal: killed")}), false, "does not start", "reinstall")
	want(t, "there", headlessShellCheck(tool{path: "/usr/bin/chromium-headless-shell", out: "Chromium 156.0.8078.114\n"}), true, "Chromium 156.0.8078.114 at /usr/bin/chromium-headless-shell", "")
}

func TestFFmpegChecks(t *testing.T) {
	_, notFound := compositor.LookFFmpeg("/no/such/ffmpeg")
	c := ffmpegCheck(tool{findErr: notFound})
	want(t, "ffmpeg not found", c, false, "not found", "apt-get install ffmpeg")
	if c.Fix != notFound.Error() {
		t.Errorf("ffmpeg not found: fix %q, want the run's own advice %q", c.Fix, notFound)
	}
	want(t, "ffprobe not found", ffprobeCheck(tool{findErr: errors.New("nope")}), false, "not found", "apt-get install ffmpeg")
	want(t, "not ffmpeg", ffmpegCheck(tool{path: "/bin/echo", out: "-version\n"}), false, "does not answer -version", "reinstall")
	want(t, "ffprobe answering as ffmpeg", ffprobeCheck(tool{path: "/x", out: "ffmpeg version 5.1\n"}), false, "does not answer", "reinstall")
	want(t, "ffmpeg", ffmpegCheck(tool{path: "/usr/bin/ffmpeg", out: "ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 the FFmpeg developers\nbuilt with gcc 12\n"}),
		true, "ffmpeg 5.1.9-0+deb12u1 at /usr/bin/ffmpeg", "")
	want(t, "ffprobe", ffprobeCheck(tool{path: "/usr/bin/ffprobe", out: "ffprobe version 6.0 Copyright\n"}), true, "ffprobe 6.0 at /usr/bin/ffprobe", "")
}

// listing writes an ffmpeg -encoders or -filters listing of names, with
// the heading and legend ffmpeg prints before them.
func listing(heading string, names ...string) string {
	var b strings.Builder
	b.WriteString(heading + ":\n V..... = Video\n A..... = Audio\n ..C = Command support\n | = Source or sink filter\n ------\n")
	for _, n := range names {
		fmt.Fprintf(&b, " V....D %-20s Something about %s\n", n, n)
	}
	return b.String()
}

func TestCodecsCheck(t *testing.T) {
	enc := listing("Encoders", append([]string{"a64multi", "libx264rgb"}, neededEncoders...)...)
	fil := listing("Filters", append([]string{"abench", "scale2ref"}, neededFilters...)...)
	want(t, "all there", codecsCheck(enc, fil, nil), true, "libx264, libvpx-vp9, gif, png", "")
	noVP9 := listing("Encoders", "libx264", "libx264rgb", "gif", "png", "libvpx")
	noPalette := listing("Filters", slices.DeleteFunc(slices.Clone(neededFilters), func(f string) bool { return strings.HasPrefix(f, "palette") })...)
	c := codecsCheck(noVP9, noPalette, nil)
	want(t, "without VP9 and palettes", c, false, "encoder libvpx-vp9, filter palettegen, filter paletteuse", "apt-get install ffmpeg")
	if strings.Contains(c.Detail, "libx264,") || strings.Contains(c.Detail, "filter scale") {
		t.Errorf("names what is there as missing: %s", c.Detail)
	}
	// The legend's letters are not names: a listing of only the legend
	// lacks everything.
	want(t, "legend only", codecsCheck(listing("Encoders"), listing("Filters"), nil), false, "encoder libx264, encoder libvpx-vp9, encoder gif, encoder png", "")
	want(t, "cannot list", codecsCheck("", "", errors.New("exit status 1")), false, "cannot list", "install ffmpeg")
}

func TestFontChecks(t *testing.T) {
	all := func(string) ([]string, error) { return []string{"Some Font", "Another"}, nil }
	cs := fontChecks(all)
	if len(cs) != len(fontNeeds) {
		t.Fatalf("%d checks for %d needs", len(cs), len(fontNeeds))
	}
	for _, c := range cs {
		want(t, c.Name, c, true, "Some Font and 1 more", "")
	}
	noKorean := func(p string) ([]string, error) {
		if strings.Contains(p, "d55c") {
			return nil, nil
		}
		return []string{"Noto Sans CJK JP"}, nil
	}
	for _, c := range fontChecks(noKorean) {
		if c.Name == "font: Korean" {
			want(t, "no Korean", c, false, "no font draws 한국어", `apt-get install fonts-noto-cjk`)
		} else {
			want(t, c.Name, c, true, "Noto Sans CJK JP (", "")
		}
	}
	for _, c := range fontChecks(func(string) ([]string, error) { return nil, errNoFCList }) {
		want(t, c.Name, c, false, "fc-list not found", "apt-get install fontconfig")
	}
	for _, c := range fontChecks(func(string) ([]string, error) { return nil, errors.New("exit status 1") }) {
		want(t, c.Name, c, false, "fc-list failed", "fontconfig")
	}
}

// Every font the doctor asks for comes with the set-up: its package is in
// the list make setup, .ci/run and the Dockerfile install.
func TestFontNeedsInstalled(t *testing.T) {
	pkgs := debianPackages(t)
	for _, n := range fontNeeds {
		if !slices.Contains(pkgs, n.pkg) {
			t.Errorf("font need %q names %s, which .ci/debian-packages does not install", n.name, n.pkg)
		}
	}
	for _, p := range []string{"chromium", "chromium-headless-shell", "ffmpeg", "fontconfig"} {
		if !slices.Contains(pkgs, p) {
			t.Errorf(".ci/debian-packages lacks %s, which the doctor checks for", p)
		}
	}
}

// debianPackages reads .ci/debian-packages.
func debianPackages(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../.ci/debian-packages")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			pkgs = append(pkgs, l)
		}
	}
	return pkgs
}

func TestSandboxCheck(t *testing.T) {
	unknown := sandboxFacts{maxUserNS: -1, unprivClone: -1, apparmor: -1}
	with := func(f func(*sandboxFacts)) sandboxFacts {
		s := unknown
		f(&s)
		return s
	}
	noUsable := fmt.Errorf("chromium exited at start (exit status 1); its last output:\n[FATAL:zygote_host_impl_linux.cc(130)] No usable sandbox! If this is a Debian system, please install the chromium-sandbox package")
	root := sandboxCheck(with(func(f *sandboxFacts) { f.launch = session.ErrRootNeedsNoSandbox }))
	want(t, "root", root, false, "running as root", "--no-sandbox")
	if root.Fix != session.ErrRootNeedsNoSandbox.Error() {
		t.Errorf("root: fix %q, want the run's own advice %q", root.Fix, session.ErrRootNeedsNoSandbox)
	}
	want(t, "root, no Chromium: the sandbox said first", sandboxCheck(with(func(f *sandboxFacts) {
		f.launch, f.chromium = session.ErrRootNeedsNoSandbox, errors.New("chromium not found: install it")
	})), false, "running as root", "--no-sandbox")
	want(t, "root, the choice made", sandboxCheck(with(func(f *sandboxFacts) { f.noSandbox = true })), true, "off, by your choice (--no-sandbox): as root", "")
	want(t, "the choice made", sandboxCheck(with(func(f *sandboxFacts) { f.euid, f.noSandbox = 1000, true })), true, "off, by your choice (--no-sandbox); Chromium starts", "")
	want(t, "on", sandboxCheck(with(func(f *sandboxFacts) { f.euid = 1000 })), true, "starts with its sandbox on", "")
	want(t, "no Chromium", sandboxCheck(with(func(f *sandboxFacts) { f.euid, f.chromium = 1000, errors.New("chromium not found: install it") })), false, "not checked", "chromium not found: install it")
	want(t, "no start without the sandbox", sandboxCheck(with(func(f *sandboxFacts) {
		f.euid, f.noSandbox, f.launch = 1000, true, errors.New("chromium exited at start; its last output:\nerror while loading shared libraries: libnss3.so")
	})), false, "even without its sandbox: error while loading shared libraries: libnss3.so", "Chromium's output")
	want(t, "no start, not the sandbox", sandboxCheck(with(func(f *sandboxFacts) {
		f.euid, f.launch = 1000, errors.New("chromium did not open its debugging port within 30s")
	})), false, "does not start: chromium did not open", "--no-sandbox")
	// No usable sandbox: the fix follows what blocks user namespaces, and
	// always ends with the exact flag that does without.
	for _, c := range []struct {
		name  string
		facts func(*sandboxFacts)
		fix   string
	}{
		{"Debian's switch off", func(f *sandboxFacts) { f.unprivClone = 0 }, "sysctl -w kernel.unprivileged_userns_clone=1"},
		{"no user namespaces at all", func(f *sandboxFacts) { f.maxUserNS = 0 }, "sysctl -w user.max_user_namespaces="},
		{"AppArmor", func(f *sandboxFacts) { f.apparmor = 1 }, "AppArmor"},
		{"a container", func(f *sandboxFacts) { f.container = true }, "docker run --security-opt seccomp=unconfined"},
		{"nothing known", func(*sandboxFacts) {}, "chromium-sandbox"},
	} {
		got := sandboxCheck(with(func(f *sandboxFacts) { f.euid, f.launch = 1000, noUsable; c.facts(f) }))
		want(t, c.name, got, false, "needs unprivileged user namespaces", c.fix)
		if !strings.HasSuffix(got.Fix, "or run without the sandbox: "+noSandboxFlag) {
			t.Errorf("%s: fix %q does not end with the flag", c.name, got.Fix)
		}
	}
}

func TestSpaceChecks(t *testing.T) {
	want(t, "Docker's default /dev/shm", shmCheck(space{path: "/dev/shm", total: 64 * mib, avail: 64 * mib}), true, "64 MiB free of 64 MiB", "")
	want(t, "small /dev/shm", shmCheck(space{path: "/dev/shm", total: 64 * mib, avail: 20 * mib}), false, "20 MiB free of 64 MiB", "--shm-size")
	want(t, "no /dev/shm", shmCheck(space{path: "/dev/shm", err: os.ErrNotExist}), false, "cannot be read", "medium: Memory")
	want(t, "roomy", spaceCheck("output folder", "out", space{path: "out", avail: 3 * gib}, minOutputSpace, "free space"), true, "out: 3.0 GiB free", "")
	want(t, "to be made", spaceCheck("output folder", "/data/out", space{path: "/data", avail: 3 * gib}, minOutputSpace, "free space"), true, "/data/out (to be made in /data): 3.0 GiB free", "")
	want(t, "full", spaceCheck("output folder", "out", space{path: "out", avail: 200 * mib}, minOutputSpace, "free space"), false, "200 MiB free, clapper wants 1.0 GiB", "free space")
	want(t, "just enough", spaceCheck("temp folder", "/tmp", space{path: "/tmp", avail: minTempSpace}, minTempSpace, "TMPDIR"), true, "512 MiB free", "")
	want(t, "unmeasurable", spaceCheck("temp folder", "/tmp", space{path: "/tmp", err: errors.New("permission denied")}, minTempSpace, "TMPDIR"), false, "cannot be measured", "TMPDIR")
}

func TestStateCheck(t *testing.T) {
	const dir = "/home/ada/.local/state/clapper"
	want(t, "there", stateCheck(dir, "the default", nil, folder{exists: true, isDir: true, writable: true}), true, dir+" (the default), for shared browsers: writable", "")
	want(t, "a file", stateCheck(dir, "the default", nil, folder{exists: true}), false, "is not a directory", "--state-dir DIR or CLAPPER_STATE_DIR")
	want(t, "read-only", stateCheck(dir, "CLAPPER_STATE_DIR", nil, folder{exists: true, isDir: true}), false, "(CLAPPER_STATE_DIR) is not writable", "chmod u+w "+dir)
	want(t, "to be made", stateCheck(dir, "the default", nil, folder{ancestor: "/home/ada", ancestorIsDir: true, ancestorWritable: true}), true, "does not exist yet, can be made (in /home/ada)", "")
	want(t, "cannot be made", stateCheck(dir, "--state-dir", nil, folder{ancestor: "/home", ancestorIsDir: true}), false, "cannot be made: /home is not writable", "--state-dir DIR")
	want(t, "under a file", stateCheck(dir, "--state-dir", nil, folder{ancestor: "/home/ada/.local", ancestorWritable: true}), false, "cannot be made: /home/ada/.local is not a directory", "--state-dir DIR")
	want(t, "unknown", stateCheck(dir, "the default", nil, folder{err: os.ErrPermission}), false, "permission denied", "--state-dir")
	want(t, "no home", stateCheck("", "", errors.New("no home folder to put it in"), folder{}), false, "no home folder", "CLAPPER_STATE_DIR")
}

// The probes behind the state and space checks, on real folders.
func TestProbeFolder(t *testing.T) {
	dir := t.TempDir()
	if f := probeFolder(dir); !f.exists || !f.isDir || !f.writable {
		t.Errorf("an existing folder: %+v", f)
	}
	if f := probeFolder(filepath.Join(dir, "a", "b", "clapper")); f.exists || f.ancestor != dir || !f.ancestorIsDir || !f.ancestorWritable {
		t.Errorf("a folder to be made: %+v, want it made in %s", f, dir)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if f := probeFolder(file); !f.exists || f.isDir {
		t.Errorf("a file: %+v", f)
	}
	if f := probeFolder(filepath.Join(file, "clapper")); f.exists || f.ancestor != file || f.ancestorIsDir {
		t.Errorf("under a file: %+v", f)
	}
	if s := statSpace(filepath.Join(dir, "not", "yet")); s.err != nil || s.path != dir || s.avail == 0 || s.total < s.avail {
		t.Errorf("space of a folder to be made: %+v", s)
	}
}

func TestBytesText(t *testing.T) {
	for n, want := range map[uint64]string{512 * kib: "512 KiB", 64 * mib: "64 MiB", 1536 * mib: "1.5 GiB", 3 * gib: "3.0 GiB"} {
		if got := bytesText(n); got != want {
			t.Errorf("bytesText(%d) = %q, want %q", n, got, want)
		}
	}
}

// The page fault check never fails: it says what a fault costs, and
// when that is slow, what it does to capture and which settings not yet
// on would help.
func TestMemoryCheck(t *testing.T) {
	us := time.Microsecond
	off := thp{enabled: "madvise", shmem: "never"}
	const anon = "echo always > /sys/kernel/mm/transparent_hugepage/enabled"
	const shared = "echo within_size > /sys/kernel/mm/transparent_hugepage/shmem_enabled"
	for _, c := range []struct {
		f         procfs.Faults
		err       error
		set       thp
		want, not []string
	}{
		{procfs.Faults{Anon: 300 * time.Nanosecond, Shared: 250 * time.Nanosecond}, nil, off,
			[]string{"a fresh page of memory costs 0.30 µs (0.25 µs shared)"}, []string{"slow"}},
		{procfs.Faults{Anon: us, Shared: us}, nil, off, []string{"costs 1.00 µs (1.00 µs shared)"}, []string{"slow"}},
		{procfs.Faults{Anon: 1040 * time.Nanosecond, Shared: us}, nil, off, []string{"costs 1.04 µs (1.00 µs shared): slow, so capture takes 3 to 4.5 times", anon + ";"}, []string{shared}},
		{procfs.Faults{Anon: 10800 * time.Nanosecond, Shared: 11 * us}, nil, off,
			[]string{"costs 10.80 µs (11.00 µs shared): slow", "(as root: " + anon + "; " + shared + "; or make tune in a clone)"}, nil},
		{procfs.Faults{Anon: 10800 * time.Nanosecond, Shared: 11 * us}, nil, thp{},
			[]string{anon + "; " + shared}, nil},
		{procfs.Faults{Anon: 200 * time.Nanosecond, Shared: 11 * us}, nil, off,
			[]string{"costs 0.20 µs (11.00 µs shared): slow", "(as root: " + shared + ";"}, []string{anon}},
		{procfs.Faults{Anon: 3 * us, Shared: 200 * time.Nanosecond}, nil, off,
			[]string{"(as root: " + anon + ";"}, []string{"shmem"}},
		{procfs.Faults{Anon: 3 * us, Shared: 3 * us}, nil, thp{enabled: "always", shmem: "within_size"},
			[]string{"slow", "transparent huge pages are on already"}, []string{"echo"}},
		{procfs.Faults{Anon: 3 * us, Shared: 3 * us}, nil, thp{enabled: "always", shmem: "never"},
			[]string{"(as root: " + shared + ";"}, []string{anon}},
		{procfs.Faults{}, errors.New("mmap: cannot allocate memory"), off, []string{"cannot be measured: mmap: cannot allocate memory"}, nil},
	} {
		got := memoryCheck(c.f, c.err, c.set)
		if !got.OK || got.Name != "page faults" || got.Fix != "" {
			t.Errorf("memoryCheck(%+v, %v, %+v) = %+v; want ok and no fix", c.f, c.err, c.set, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got.Detail, w) {
				t.Errorf("memoryCheck(%+v, %+v): %q\nwant it to say %q", c.f, c.set, got.Detail, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got.Detail, n) {
				t.Errorf("memoryCheck(%+v, %+v): %q\nwant it not to say %q", c.f, c.set, got.Detail, n)
			}
		}
	}
}

// chosen reads the bracketed choice of a kernel setting.
func TestChosen(t *testing.T) {
	dir := t.TempDir()
	for in, want := range map[string]string{
		"always [madvise] never\n":                       "madvise",
		"always within_size advise [never] deny force\n": "never",
		"[always] madvise never":                         "always",
		"always madvise never":                           "",
		"always [madvise never":                          "",
	} {
		p := filepath.Join(dir, "setting")
		if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := chosen(p); got != want {
			t.Errorf("chosen(%q) = %q, want %q", in, got, want)
		}
	}
	if got := chosen(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("chosen of a missing file = %q", got)
	}
}
