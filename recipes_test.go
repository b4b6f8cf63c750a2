package clapper_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// The recipes in docs/ cannot run here (no GitHub, no cluster, no
// container runtime): these tests parse them and check the structure each
// needs, and that they agree with the Dockerfile and with each other.

// yamlDocs parses every document of a YAML file.
func yamlDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []map[string]any
	dec := yaml.NewDecoder(f)
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

// at walks a parsed document: at(doc, "spec", "template", "spec") is
// doc.spec.template.spec, nil when any part is missing.
func at(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// dockerfile is the Dockerfile's instructions, continuation lines joined.
func dockerfile(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var ins []string
	cur := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") || strings.TrimSpace(l) == "" {
			continue
		}
		cur += strings.TrimSpace(l)
		if strings.HasSuffix(cur, "\\") {
			cur = strings.TrimSuffix(cur, "\\") + " "
			continue
		}
		ins = append(ins, strings.Join(strings.Fields(cur), " "))
		cur = ""
	}
	return ins
}

// imageUID is the uid the image runs clapper as (useradd --uid N).
func imageUID(t *testing.T) string {
	t.Helper()
	for _, in := range dockerfile(t) {
		if m := regexp.MustCompile(`useradd .*--uid (\d+)`).FindStringSubmatch(in); m != nil {
			return m[1]
		}
	}
	t.Fatal("the Dockerfile makes no user with useradd --uid")
	return ""
}

// The image: a Debian bookworm stage installs exactly .ci/debian-packages
// with the installer make setup runs, makes a user, and runs clapper as
// that user, never as root, with the sandbox left on.
func TestDockerfile(t *testing.T) {
	ins := dockerfile(t)
	var final []string
	for _, in := range ins {
		if strings.HasPrefix(in, "FROM ") {
			final = nil
		}
		final = append(final, in)
	}
	if len(final) == 0 || !regexp.MustCompile(`^FROM debian:bookworm(-slim)?$`).MatchString(final[0]) {
		t.Fatalf("the image's stage is %q, want FROM debian:bookworm-slim", final[:1])
	}
	has := func(re string) string {
		for _, in := range final {
			if regexp.MustCompile(re).MatchString(in) {
				return in
			}
		}
		t.Errorf("the image's stage has no instruction matching %s", re)
		return ""
	}
	cp := has(`^COPY \.ci/debian-packages \.ci/install-packages (\S+)/$`)
	dir := regexp.MustCompile(`(\S+)/$`).FindStringSubmatch(cp)
	if dir != nil {
		has(`^RUN ` + regexp.QuoteMeta(dir[1]) + `/install-packages && rm -rf /var/lib/apt/lists/\*`)
	}
	uid := imageUID(t)
	has(`^USER ` + uid + `(:` + uid + `)?$`)
	has(`^COPY --from=build \S+ /usr/local/bin/clapper$`)
	has(`^ENTRYPOINT \["clapper"\]$`)
	if uid == "0" {
		t.Error("the image runs as root")
	}
	// The build stage stamps the version, from a build argument.
	build := strings.Join(ins, "\n")
	if !strings.Contains(build, "-X main.releaseVersion=${VERSION}") || !strings.Contains(build, "ARG VERSION") {
		t.Error("the build stage does not stamp VERSION into clapper --version")
	}
	for _, f := range []string{"Dockerfile", "docs/recipes/github-actions.yml", "docs/recipes/kubernetes/job.yaml", "docs/recipes/kubernetes/indexed-job.yaml"} {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "--no-sandbox") || strings.Contains(string(b), "CLAPPER_NO_SANDBOX") || strings.Contains(string(b), "sandbox: false") {
			t.Errorf("%s turns Chromium's sandbox off", f)
		}
	}
}

// The workflow: triggers, jobs that each run somewhere and have steps
// that each use an action or run a command, needs that name jobs, a film
// job whose matrix is the planned scripts, that runs the doctor and then
// clapper run with JUnit, and uploads videos, the take and the JUnit report
// as artifacts even when the run failed.
func TestGitHubActionsRecipe(t *testing.T) {
	docs := yamlDocs(t, "docs/recipes/github-actions.yml")
	if len(docs) != 1 {
		t.Fatalf("%d documents, want 1", len(docs))
	}
	wf := docs[0]
	if str(wf["name"]) == "" || wf["on"] == nil {
		t.Errorf("no name or no on: %v", wf)
	}
	jobs, ok := wf["jobs"].(map[string]any)
	if !ok || len(jobs) == 0 {
		t.Fatalf("no jobs: %v", wf["jobs"])
	}
	for name, j := range jobs {
		if str(at(j, "runs-on")) == "" {
			t.Errorf("job %s has no runs-on", name)
		}
		steps, _ := at(j, "steps").([]any)
		if len(steps) == 0 {
			t.Errorf("job %s has no steps", name)
		}
		for i, s := range steps {
			if (at(s, "uses") == nil) == (at(s, "run") == nil) {
				t.Errorf("job %s step %d: want exactly one of uses and run: %v", name, i, s)
			}
		}
		var needs []any
		switch n := at(j, "needs").(type) {
		case string:
			needs = []any{n}
		case []any:
			needs = n
		}
		for _, n := range needs {
			if _, ok := jobs[str(n)]; !ok {
				t.Errorf("job %s needs %v, which is no job", name, n)
			}
		}
	}
	// The film job: one job a shard, 1 to SHARDS, one failure stopping
	// none, each running its part of the suite into its own folder and
	// keeping it whatever the outcome.
	film := jobs["film"]
	shards, _ := at(film, "strategy", "matrix", "shard").([]any)
	n, _ := strconv.Atoi(str(at(wf, "env", "SHARDS")))
	if n < 2 || len(shards) != n || at(film, "strategy", "fail-fast") != false {
		t.Errorf("the film job's matrix is not the shards 1 to SHARDS (%d), one failure stopping none: %v", n, at(film, "strategy"))
	}
	for i, sh := range shards {
		if str(sh) != strconv.Itoa(i+1) {
			t.Errorf("shard %d of the matrix is %v", i+1, sh)
		}
	}
	all := runsOf(t, film)
	doctor, run := strings.Index(all, `"$IMAGE" doctor`), strings.Index(all, `"$IMAGE" run "$SCRIPTS" -o "out/shard-${{ matrix.shard }}" --shard "${{ matrix.shard }}/$SHARDS"`)
	if doctor < 0 || run < doctor || !strings.Contains(all, `--junit "out/shard-${{ matrix.shard }}/junit.xml"`) || strings.Count(all, "--security-opt seccomp=unconfined") != 2 {
		t.Errorf("the film job does not run the doctor, then its shard of the suite into its own folder with --junit, both with seccomp=unconfined:\n%s", all)
	}
	up := uploadOf(film)
	if str(at(up, "if")) != "always()" || str(at(up, "with", "name")) != "shard-${{ matrix.shard }}" || str(at(up, "with", "path")) != "out/shard-${{ matrix.shard }}/" {
		t.Errorf("the film job does not keep its shard's folder whatever the outcome: %v", up)
	}
	// The merge job: after every shard, passed or failed, it fetches the
	// shards into one folder and merges them there, JUnit included.
	merge := jobs["merge"]
	if !strings.HasPrefix(str(at(merge, "if")), "always()") || !strings.Contains(str(at(merge, "needs")), "film") {
		t.Errorf("the merge job does not run after the shards whatever their outcome: %v", merge)
	}
	var down any
	for _, s := range at(merge, "steps").([]any) {
		if strings.HasPrefix(str(at(s, "uses")), "actions/download-artifact@") {
			down = s
		}
	}
	if str(at(down, "with", "pattern")) != "shard-*" || str(at(down, "with", "path")) != "suite" {
		t.Errorf("the merge job does not fetch every shard into suite/: %v", down)
	}
	if m := runsOf(t, merge); !strings.Contains(m, `"$IMAGE" merge suite/shard-* -o suite --junit suite/junit.xml`) {
		t.Errorf("the merge job does not merge the shards with JUnit:\n%s", m)
	}
	if up := uploadOf(merge); str(at(up, "with", "path")) != "suite/" || str(at(up, "if")) != "always()" {
		t.Errorf("the merged suite is not kept: %v", up)
	}
	if !strings.Contains(str(at(jobs["image"], "steps", 2, "with", "context")), "clapper-src") {
		t.Error("the image job does not build clapper's Dockerfile")
	}
}

// The Kubernetes recipes: every document has apiVersion, kind, a name and
// a spec; the Jobs run the image as its own user with the sandbox's
// seccomp, memory bounds, /dev/shm from memory, and the output on a claim
// the file defines; the indexed Job picks its script by its index.
// runsOf is the run steps of a job as the shell reads them: continued
// lines joined, spaces squeezed.
func runsOf(t *testing.T, job any) string {
	t.Helper()
	var runs []string
	steps, _ := at(job, "steps").([]any)
	for _, s := range steps {
		if r := str(at(s, "run")); r != "" {
			runs = append(runs, r)
		}
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.Join(runs, "\n"), "\\\n", " ")), " ")
}

// uploadOf is a job's (last) upload-artifact step.
func uploadOf(job any) any {
	var up any
	steps, _ := at(job, "steps").([]any)
	for _, s := range steps {
		if strings.HasPrefix(str(at(s, "uses")), "actions/upload-artifact@") {
			up = s
		}
	}
	return up
}

func TestKubernetesRecipes(t *testing.T) {
	uid := imageUID(t)
	for _, file := range []string{"docs/recipes/kubernetes/job.yaml", "docs/recipes/kubernetes/indexed-job.yaml", "docs/recipes/kubernetes/merge-job.yaml"} {
		merge := strings.HasSuffix(file, "merge-job.yaml")
		docs := yamlDocs(t, file)
		claims := map[string]bool{}
		var jobs []map[string]any
		for i, d := range docs {
			for _, k := range []string{"apiVersion", "kind", "spec"} {
				if d[k] == nil {
					t.Errorf("%s document %d has no %s", file, i, k)
				}
			}
			if str(at(d, "metadata", "name")) == "" {
				t.Errorf("%s document %d has no metadata.name", file, i)
			}
			switch d["kind"] {
			case "PersistentVolumeClaim":
				claims[str(at(d, "metadata", "name"))] = true
			case "Job":
				jobs = append(jobs, d)
			}
		}
		if len(jobs) != 1 {
			t.Fatalf("%s: %d Jobs, want 1", file, len(jobs))
		}
		job := jobs[0]
		if job["apiVersion"] != "batch/v1" {
			t.Errorf("%s: Job apiVersion %v", file, job["apiVersion"])
		}
		pod := at(job, "spec", "template", "spec")
		if r := str(at(pod, "restartPolicy")); r != "Never" && r != "OnFailure" {
			t.Errorf("%s: restartPolicy %q: a Job's pods must not restart Always", file, r)
		}
		sc := at(pod, "securityContext")
		if seccomp := str(at(sc, "seccompProfile", "type")); at(sc, "runAsNonRoot") != true || str(at(sc, "runAsUser")) != uid || str(at(sc, "fsGroup")) != uid || seccomp != "Unconfined" && !(merge && seccomp == "RuntimeDefault") {
			t.Errorf("%s: pod securityContext %v: want runAsNonRoot, the image's uid %s, its fsGroup, and the seccomp the sandbox needs", file, sc, uid)
		}
		volumes := map[string]any{}
		vols, _ := at(pod, "volumes").([]any)
		for _, v := range vols {
			volumes[str(at(v, "name"))] = v
		}
		containers, _ := at(pod, "containers").([]any)
		if len(containers) != 1 {
			t.Fatalf("%s: %d containers", file, len(containers))
		}
		c := containers[0]
		if str(at(c, "image")) == "" || str(at(c, "resources", "limits", "memory")) == "" || str(at(c, "resources", "requests", "memory")) == "" {
			t.Errorf("%s: container without an image or memory bounds: %v", file, c)
		}
		if at(c, "securityContext", "allowPrivilegeEscalation") != false || str(at(c, "securityContext", "capabilities", "drop")) != "[ALL]" {
			t.Errorf("%s: the container may escalate or keeps capabilities: %v", file, at(c, "securityContext"))
		}
		mounts := map[string]string{}
		ms, _ := at(c, "volumeMounts").([]any)
		for _, m := range ms {
			name := str(at(m, "name"))
			if volumes[name] == nil {
				t.Errorf("%s: mount of volume %q, which the pod does not have", file, name)
			}
			mounts[str(at(m, "mountPath"))] = name
		}
		cmd := str(at(c, "args"))
		if merge {
			// No browser: the shards' output, merged in place.
			if out := volumes[mounts["/work/out"]]; str(at(out, "persistentVolumeClaim", "claimName")) != "clapper-out" || len(mounts) != 1 {
				t.Errorf("%s: the merge pod does not mount the shards' claim, and only it: %v", file, mounts)
			}
			if !strings.Contains(cmd, "exec clapper merge /work/out/shard-* -o /work/out --junit /work/out/junit.xml") {
				t.Errorf("%s: the pod does not merge the shards with JUnit: %s", file, cmd)
			}
			continue
		}
		if shm := volumes[mounts["/dev/shm"]]; str(at(shm, "emptyDir", "medium")) != "Memory" {
			t.Errorf("%s: /dev/shm is not a memory-backed emptyDir: %v", file, shm)
		}
		if out := volumes[mounts["/work/out"]]; !claims[str(at(out, "persistentVolumeClaim", "claimName"))] {
			t.Errorf("%s: the output is not on a claim the file defines: %v", file, out)
		}
		if str(at(volumes[mounts["/scripts"]], "configMap", "name")) == "" {
			t.Errorf("%s: the scripts are not from a ConfigMap", file)
		}
		if !strings.Contains(cmd, "run") || !strings.Contains(cmd, "--junit") || !strings.Contains(cmd, "/work/out/") {
			t.Errorf("%s: the container does not run a script into /work/out with JUnit: %s", file, cmd)
		}
		if strings.Contains(file, "indexed") {
			spec := at(job, "spec")
			if at(spec, "completionMode") != "Indexed" || at(spec, "completions") == nil || at(spec, "parallelism") == nil {
				t.Errorf("%s: not an indexed Job with completions and parallelism: %v", file, spec)
			}
			if !strings.Contains(cmd, "shard=$((JOB_COMPLETION_INDEX + 1))") || !strings.Contains(cmd, `exec clapper run /scripts -o "/work/out/shard-$shard" --shard "$shard/$SHARDS" --workers 1`) {
				t.Errorf("%s: the shard is not picked by the index: %s", file, cmd)
			}
			var shards string
			envs, _ := at(c, "env").([]any)
			for _, e := range envs {
				if str(at(e, "name")) == "SHARDS" {
					shards = str(at(e, "value"))
				}
			}
			if shards == "" || shards != str(at(spec, "completions")) {
				t.Errorf("%s: SHARDS is %q, completions %v: want them equal", file, shards, at(spec, "completions"))
			}
			if str(at(docs[0], "spec", "accessModes")) != "[ReadWriteMany]" {
				t.Errorf("%s: pods on many nodes share the output: want ReadWriteMany", file)
			}
		}
	}
}

// The README and the docs link only to files that exist, and the README
// links the recipes.
func TestDocLinks(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md")
	link := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	linked := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			p := filepath.Join(filepath.Dir(f), target)
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links %s, which does not exist", f, target)
			}
			if f == "README.md" {
				linked[filepath.Clean(p)] = true
			}
		}
	}
	for _, want := range []string{"Dockerfile", "docs/CONTAINER.md", "docs/CI.md", "docs/KUBERNETES.md"} {
		if !linked[want] {
			t.Errorf("the README does not link %s", want)
		}
	}
	for _, pair := range [][2]string{{"docs/CI.md", "recipes/github-actions.yml"}, {"docs/KUBERNETES.md", "recipes/kubernetes/job.yaml"}, {"docs/KUBERNETES.md", "recipes/kubernetes/indexed-job.yaml"}, {"docs/KUBERNETES.md", "recipes/kubernetes/merge-job.yaml"}} {
		b, _ := os.ReadFile(pair[0])
		if !strings.Contains(string(b), "]("+pair[1]+")") {
			t.Errorf("%s does not link %s", pair[0], pair[1])
		}
	}
	if !slices.Contains(files, "docs/ARCHITECTURE.md") {
		t.Error("docs/ARCHITECTURE.md not found: the glob is wrong")
	}
}
