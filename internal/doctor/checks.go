package doctor

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/session"
)

// The doctor's verdicts: pure functions from what the probes in doctor.go
// found to a check, each with the fix to apply when it fails. The fixes
// for a missing Chromium, a missing ffmpeg and the sandbox as root are the
// errors a run gives (film's preflight), word for word.

// Check is one line of the doctor's report.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`        // what was found
	Fix    string `json:"fix,omitempty"` // what to do, when not OK
}

func pass(name, format string, args ...any) Check {
	return Check{Name: name, OK: true, Detail: fmt.Sprintf(format, args...)}
}

func fail(name, fix, format string, args ...any) Check {
	return Check{Name: name, Detail: fmt.Sprintf(format, args...), Fix: fix}
}

// tool is what a probe found of an executable: where it is (or why it was
// not found) and what it printed when asked for its version.
type tool struct {
	path    string
	findErr error
	out     string // standard output of the version query
	runErr  error
}

// minChromium is the oldest Chromium clapper supports: it launches the
// new headless mode (--headless=new), the default since Chromium 112.
const minChromium = 112

var chromiumVersion = regexp.MustCompile(`\b(\d+)\.\d+\.\d+\.\d+\b`)

// versionLine is the start of the first line of out that names a
// version, up to the version: "Chromium 156.0.8078.114" of "Chromium
// 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)".
func versionLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if m := chromiumVersion.FindStringIndex(l); m != nil {
			return strings.TrimSpace(l[:m[1]])
		}
	}
	return strings.TrimSpace(out)
}

// chromiumCheck judges the Chromium clapper launches.
func chromiumCheck(t tool) Check {
	const name = "chromium"
	if t.findErr != nil {
		return fail(name, t.findErr.Error(), "not found")
	}
	if t.runErr != nil {
		return fail(name, `reinstall it ("apt-get install --reinstall chromium") or pass another with --chromium PATH`,
			"%s does not start: %v", t.path, t.runErr)
	}
	m := chromiumVersion.FindStringSubmatch(t.out)
	if m == nil {
		return fail(name, "pass a Chromium (or Chrome) with --chromium PATH", "%s printed no Chromium version: %q", t.path, strings.TrimSpace(t.out))
	}
	if major, _ := strconv.Atoi(m[1]); major < minChromium {
		return fail(name, `upgrade it ("apt-get install chromium") or pass a newer one with --chromium PATH`,
			"%s at %s: clapper needs Chromium %d or later (the new headless mode)", versionLine(t.out), t.path, minChromium)
	}
	return pass(name, "%s at %s", versionLine(t.out), t.path)
}

// headlessShellCheck judges chromium-headless-shell, the lean headless
// build of Chromium that studio capture runs on.
func headlessShellCheck(t tool) Check {
	const name = "headless shell"
	const fix = `install it with "apt-get install chromium-headless-shell"`
	switch {
	case t.findErr != nil:
		return fail(name, fix, "chromium-headless-shell (studio capture) not found")
	case t.runErr != nil:
		return fail(name, "reinstall it (\"apt-get install --reinstall chromium-headless-shell\")", "%s does not start: %v", t.path, t.runErr)
	case !chromiumVersion.MatchString(t.out):
		return fail(name, fix, "%s printed no version: %q", t.path, strings.TrimSpace(t.out))
	}
	return pass(name, "%s at %s (studio capture)", versionLine(t.out), t.path)
}

// ffmpegCheck and ffprobeCheck judge the two ffmpeg tools.
func ffmpegCheck(t tool) Check  { return ffToolCheck("ffmpeg", t) }
func ffprobeCheck(t tool) Check { return ffToolCheck("ffprobe", t) }

func ffToolCheck(name string, t tool) Check {
	if t.findErr != nil {
		fix := t.findErr.Error()
		if name == "ffprobe" {
			fix = `install it with "apt-get install ffmpeg" (Debian's ffmpeg has ffprobe)`
		}
		return fail(name, fix, "not found")
	}
	first := strings.TrimSpace(strings.SplitN(t.out, "\n", 2)[0])
	if t.runErr != nil || !strings.HasPrefix(first, name+" version ") {
		return fail(name, `reinstall it ("apt-get install --reinstall ffmpeg")`, "%s does not answer -version: %v %q", t.path, t.runErr, first)
	}
	v, _, _ := strings.Cut(strings.TrimPrefix(first, name+" version "), " ")
	return pass(name, "%s %s at %s", name, v, t.path)
}

// The encoders and filters the compositor's ffmpeg arguments name
// (compositor/args.go): MP4, WebM, PNG frames and GIF, the
// overlays (libass) and the camera.
var (
	neededEncoders = []string{"libx264", "libvpx-vp9", "gif", "png"}
	neededFilters  = []string{"palettegen", "paletteuse", "ass", "scale", "crop", "pad", "overlay", "zoompan", "loop", "split", "format", "null", "setparams"}
)

// ffmpegNames reads the names listed by ffmpeg -encoders or -filters: the
// second column of each line that is not the heading or the legend
// ("Encoders:", " V..... = Video", " ------").
func ffmpegNames(list string) map[string]bool {
	names := map[string]bool{}
	for _, l := range strings.Split(list, "\n") {
		if f := strings.Fields(l); len(f) >= 3 && f[1] != "=" {
			names[f[1]] = true
		}
	}
	return names
}

// codecsCheck judges whether ffmpeg has what clapper renders with.
func codecsCheck(encoders, filters string, err error) Check {
	const name = "encoders"
	if err != nil {
		return fail(name, "install ffmpeg first", "cannot list ffmpeg's encoders and filters: %v", err)
	}
	enc, fil := ffmpegNames(encoders), ffmpegNames(filters)
	var missing []string
	for _, e := range neededEncoders {
		if !enc[e] {
			missing = append(missing, "encoder "+e)
		}
	}
	for _, f := range neededFilters {
		if !fil[f] {
			missing = append(missing, "filter "+f)
		}
	}
	if len(missing) > 0 {
		return fail(name, `install Debian's ffmpeg ("apt-get install ffmpeg"), which has them, or pass one that does with --ffmpeg PATH`,
			"this ffmpeg lacks %s", strings.Join(missing, ", "))
	}
	return pass(name, "%s; GIF palettes (palettegen, paletteuse), overlays (libass)", strings.Join(neededEncoders, ", "))
}

// fontNeed is a kind of text real pages carry, the fontconfig pattern a
// font must match to draw it, and the Debian package that has one.
type fontNeed struct {
	name    string
	sample  string // what the font draws, for people
	pattern string // for fc-list
	pkg     string
}

// fontNeeds are the fonts clapper's set-up installs (.ci/debian-packages):
// without them Chromium draws these characters as boxes.
var fontNeeds = []fontNeed{
	{"colour emoji", "🚀✅👩‍💻", ":charset=1f680 2705 1f469 1f4bb:color=True", "fonts-noto-color-emoji"},
	{"Chinese and Japanese", "日本語 ひらがな", ":charset=65e5 672c 8a9e 3072 3089", "fonts-noto-cjk"},
	{"Korean", "한국어", ":charset=d55c ad6d c5b4", "fonts-noto-cjk"},
	{"Arabic", "العربية", ":charset=627 644 639 631 628 64a 629", "fonts-noto-core"},
	{"Devanagari", "हिन्दी", ":charset=939 93f 928 94d 926 940", "fonts-noto-core"},
	{"Arial-compatible", "Liberation Sans", "Liberation Sans", "fonts-liberation2"},
	{"Times-compatible", "Liberation Serif", "Liberation Serif", "fonts-liberation2"},
	{"Courier-compatible", "Liberation Mono", "Liberation Mono", "fonts-liberation2"},
}

// fontChecks judges each need from the families fc-list lists for its
// pattern (list is fc-list).
func fontChecks(list func(pattern string) ([]string, error)) []Check {
	var cs []Check
	for _, n := range fontNeeds {
		name := "font: " + n.name
		fams, err := list(n.pattern)
		switch {
		case errors.Is(err, errNoFCList):
			cs = append(cs, fail(name, `install fontconfig ("apt-get install fontconfig"), which Chromium's fonts are found with`, "cannot look: fc-list not found"))
		case err != nil:
			cs = append(cs, fail(name, `install fontconfig ("apt-get install --reinstall fontconfig")`, "fc-list failed: %v", err))
		case len(fams) == 0:
			cs = append(cs, fail(name, fmt.Sprintf(`install it with "apt-get install %s"`, n.pkg), "no font draws %s: Chromium shows boxes instead", n.sample))
		case len(fams) == 1:
			cs = append(cs, pass(name, "%s (%s)", fams[0], n.sample))
		default:
			cs = append(cs, pass(name, "%s and %d more (%s)", fams[0], len(fams)-1, n.sample))
		}
	}
	return cs
}

// errNoFCList is what the fc-list probe returns when fc-list is missing.
var errNoFCList = errors.New("fc-list not found")

// sandboxFacts are what decides whether Chromium's sandbox can start: the
// user, the choice made, how Chromium's launch went, and the kernel's
// settings for the user namespaces the sandbox is made of (-1: unknown).
type sandboxFacts struct {
	euid      int
	noSandbox bool  // the explicit choice (--no-sandbox, CLAPPER_NO_SANDBOX)
	chromium  error // finding Chromium
	launch    error // launching it with the choice (nil: it started)
	// /proc/sys/user/max_user_namespaces, kernel.unprivileged_userns_clone
	// and kernel.apparmor_restrict_unprivileged_userns.
	maxUserNS, unprivClone, apparmor int
	container                        bool // in a container (Docker, Podman, Kubernetes)
}

// noSandboxFlag is the exact choice that runs Chromium without its sandbox.
const noSandboxFlag = "--no-sandbox (or CLAPPER_NO_SANDBOX=1, or browser: {sandbox: false} in the script)"

// sandboxCheck judges whether Chromium's sandbox can start, and whether
// Chromium starts the way clapper's runs will launch it.
func sandboxCheck(f sandboxFacts) Check {
	const name = "sandbox"
	switch {
	case errors.Is(f.launch, session.ErrRootNeedsNoSandbox):
		return fail(name, session.ErrRootNeedsNoSandbox.Error(), "running as root: Chromium's sandbox cannot start")
	case f.chromium != nil:
		return fail(name, f.chromium.Error(), "not checked: no Chromium to start")
	case f.launch != nil && f.noSandbox:
		return fail(name, "see Chromium's output above; clapper doctor --json shows it whole", "Chromium does not start even without its sandbox: %s", lastLine(f.launch))
	case f.launch != nil && strings.Contains(f.launch.Error(), "No usable sandbox"):
		return fail(name, sandboxFix(f), "Chromium's sandbox cannot start here: it needs unprivileged user namespaces")
	case f.launch != nil:
		return fail(name, "see Chromium's output above; if it names the sandbox, run with "+noSandboxFlag, "Chromium does not start: %s", lastLine(f.launch))
	case f.noSandbox && f.euid == 0:
		return pass(name, "off, by your choice (--no-sandbox): as root the sandbox cannot start; Chromium starts without it")
	case f.noSandbox:
		return pass(name, "off, by your choice (--no-sandbox); Chromium starts without it")
	}
	return pass(name, "Chromium starts with its sandbox on")
}

// sandboxFix says how to let the sandbox start, from what blocks it, and
// the exact flag that does without it.
func sandboxFix(f sandboxFacts) string {
	var how string
	switch {
	case f.unprivClone == 0:
		how = "allow unprivileged user namespaces (sysctl -w kernel.unprivileged_userns_clone=1), or install the setuid helper (\"apt-get install chromium-sandbox\")"
	case f.maxUserNS == 0:
		how = "allow user namespaces (sysctl -w user.max_user_namespaces=15000)"
	case f.apparmor == 1:
		how = "AppArmor forbids user namespaces to unconfined programs here: give Chromium an AppArmor profile that allows them (or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)"
	case f.container:
		how = "in a container, the seccomp profile usually forbids user namespaces: run it with one that allows them (docker run --security-opt seccomp=unconfined, or seccompProfile: {type: Unconfined} in Kubernetes)"
	default:
		how = "allow unprivileged user namespaces, or install the setuid helper (\"apt-get install chromium-sandbox\")"
	}
	return how + "; or run without the sandbox: " + noSandboxFlag
}

// lastLine is the last non-empty line of an error, where Chromium says why
// it stopped.
func lastLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// space is what statfs said of a folder's file system (or why it could
// not).
type space struct {
	path         string // the folder measured
	total, avail uint64 // bytes
	err          error
}

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// bytesText writes a size as people read it: 64 MiB, 12.3 GiB.
func bytesText(n uint64) string {
	switch {
	case n >= gib:
		return strconv.FormatFloat(float64(n)/gib, 'f', 1, 64) + " GiB"
	case n >= mib:
		return strconv.FormatUint(n/mib, 10) + " MiB"
	}
	return strconv.FormatUint(n/kib, 10) + " KiB"
}

// minShm is the smallest /dev/shm the doctor accepts: Docker's default.
const minShm = 64 * mib

// shmCheck judges /dev/shm. Chromium 156 shares memory between its
// processes through memfd (seen as /memfd:shared-memory-region in their
// maps), and clapper starts it with --disable-dev-shm-usage, so the files
// it would otherwise make in /dev/shm go to the temp folder; /dev/shm
// must still exist with room for what else uses it.
func shmCheck(s space) Check {
	const name = "/dev/shm"
	const fix = "give it at least 64 MiB: docker run --shm-size=1g, or in Kubernetes an emptyDir volume with medium: Memory mounted at /dev/shm"
	if s.err != nil {
		return fail(name, fix, "cannot be read: %v", s.err)
	}
	if s.avail < minShm {
		return fail(name, fix, "%s free of %s", bytesText(s.avail), bytesText(s.total))
	}
	return pass(name, "%s free of %s (Chromium runs with --disable-dev-shm-usage, so it keeps no files there)", bytesText(s.avail), bytesText(s.total))
}

// The free space the doctor asks for: a take spools every frame to disk
// (a minute of 1280x720 capture is a few hundred MB) and Chromium keeps
// its profile and shared memory in the temp folder.
const (
	minOutputSpace = 1 * gib
	minTempSpace   = 512 * mib
)

// spaceCheck judges the free space of a folder (want: the folder as the
// user named it; s.path: the folder measured, itself or the nearest one
// that exists).
func spaceCheck(name, want string, s space, min uint64, fix string) Check {
	if s.err != nil {
		return fail(name, fix, "%s: cannot be measured: %v", want, s.err)
	}
	where := want
	if filepath.Clean(s.path) != filepath.Clean(want) {
		where = fmt.Sprintf("%s (to be made in %s)", want, s.path)
	}
	if s.avail < min {
		return fail(name, fix, "%s: %s free, clapper wants %s", where, bytesText(s.avail), bytesText(min))
	}
	return pass(name, "%s: %s free", where, bytesText(s.avail))
}

// folder is what a probe found of a folder that may not exist yet: the
// folder itself, or else its nearest existing ancestor.
type folder struct {
	exists, isDir, writable bool // the folder
	// ancestor is, when the folder does not exist, its nearest existing
	// ancestor, which it would be made in.
	ancestor                        string
	ancestorIsDir, ancestorWritable bool
	err                             error // when nothing could be learnt
}

// stateCheck judges the state folder: usable when it is a writable
// directory, or does not exist yet and can be made.
func stateCheck(dir, from string, resolveErr error, f folder) Check {
	const name = "state folder"
	const fix = "choose a folder you can write with --state-dir DIR or CLAPPER_STATE_DIR=DIR"
	switch {
	case resolveErr != nil:
		return fail(name, fix, "%v", resolveErr)
	case f.err != nil:
		return fail(name, fix, "%s (%s): %v", dir, from, f.err)
	case f.exists && !f.isDir:
		return fail(name, fix, "%s (%s) is not a directory", dir, from)
	case f.exists && !f.writable:
		return fail(name, fmt.Sprintf("make it writable (chmod u+w %s), or %s", dir, fix), "%s (%s) is not writable", dir, from)
	case f.exists:
		return pass(name, "%s (%s), for shared browsers: writable", dir, from)
	case !f.ancestorIsDir:
		return fail(name, fix, "%s (%s) does not exist and cannot be made: %s is not a directory", dir, from, f.ancestor)
	case !f.ancestorWritable:
		return fail(name, fix, "%s (%s) does not exist and cannot be made: %s is not writable", dir, from, f.ancestor)
	}
	return pass(name, "%s (%s), for shared browsers: does not exist yet, can be made (in %s)", dir, from, f.ancestor)
}

// slowFault is the page fault cost above which the doctor says capture
// will be slow here: a machine whose processor pages for the hypervisor
// (or bare metal) faults a page in well under a microsecond; one whose
// hypervisor traps each fault took about 11 µs (docs/internals.md, "Slow
// page faults").
const slowFault = time.Microsecond

// thpDir is where Linux sets transparent huge pages.
const thpDir = "/sys/kernel/mm/transparent_hugepage/"

// thp is what the probe read of the transparent huge page settings: the
// chosen value of each ("" when unreadable).
type thp struct{ enabled, shmem string }

// memoryCheck reports what a fresh page of memory costs here
// (procfs.PageFaultCost). A slow fault is not a failure: everything
// works, at a cost the report names, with the settings not yet on that
// take much of it back, so that figures measured here are not taken for
// clapper's.
func memoryCheck(f procfs.Faults, err error, set thp) Check {
	const name = "page faults"
	if err != nil {
		return pass(name, "cannot be measured: %v", err)
	}
	cost := fmt.Sprintf("a fresh page of memory costs %s (%s shared)", micros(f.Anon), micros(f.Shared))
	if f.Worst() <= slowFault {
		return pass(name, "%s", cost)
	}
	var do []string
	if f.Anon > slowFault && set.enabled != "always" {
		do = append(do, "echo always > "+thpDir+"enabled")
	}
	if f.Shared > slowFault && !slices.Contains([]string{"always", "within_size", "force"}, set.shmem) {
		do = append(do, "echo within_size > "+thpDir+"shmem_enabled")
	}
	help := "transparent huge pages are on already"
	if len(do) > 0 {
		help = "transparent huge pages help, most at device scale 2 (as root: " + strings.Join(do, "; ") + "; or make tune in a clone)"
	}
	return pass(name, "%s: slow, so capture takes 3 to 4.5 times as long here as where a fault costs under 1 µs; %s", cost, help)
}

// micros writes d in microseconds.
func micros(d time.Duration) string {
	return fmt.Sprintf("%.2f µs", float64(d)/float64(time.Microsecond))
}
