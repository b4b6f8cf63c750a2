package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// The sharded recipes' own command lines, run as each shard would run them
// (with --list: which scripts it films, nothing filmed): every script of
// the suite is filmed by exactly one shard, and the shards together are
// the unsharded suite. TestSuiteWorkersShardsAndMerge films shards and
// merges them.
func TestRecipeShardsCoverTheSuite(t *testing.T) {
	dir := t.TempDir()
	scripts := filepath.Join(dir, "scripts")
	os.Mkdir(scripts, 0o755)
	for _, n := range []string{"billing", "checkout", "login", "onboarding", "search", "settings", "signup"} {
		writeFile(t, scripts, n+".yaml", "name: "+n+"\nsteps:\n  - goto: about:blank\n")
	}
	list := func(args []string) []string {
		t.Helper()
		stdout, stderr, code := runCLI(t, append(args, "--list")...)
		if code != 0 {
			t.Fatalf("clapper %s --list: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			if s, _, ok := strings.Cut(l, "\t"); ok {
				got = append(got, s)
			}
		}
		return got
	}
	whole := list([]string{"run", scripts})
	if len(whole) != 7 {
		t.Fatalf("the unsharded suite lists %d scripts, want 7: %v", len(whole), whole)
	}

	// GitHub Actions: the film job's run line, for each shard of its matrix.
	wf := readYAML(t, "../../docs/recipes/github-actions.yml")
	shards, err := strconv.Atoi(dig(wf, "env", "SHARDS"))
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for i := range 10 {
		for _, l := range strings.Split(strings.ReplaceAll(dig(wf, "jobs", "film", "steps", strconv.Itoa(i), "run"), "\\\n", " "), "\n") {
			if _, rest, ok := strings.Cut(strings.Join(strings.Fields(l), " "), `"$IMAGE" run `); ok {
				line = "run " + rest
			}
		}
	}
	if line == "" {
		t.Fatal("no clapper run in the film job's steps")
	}
	gh := func(i int) []string {
		l := strings.NewReplacer("$SCRIPTS", scripts, "${{ matrix.shard }}", strconv.Itoa(i), "$SHARDS", strconv.Itoa(shards), "out/", dir+"/gh/").Replace(line)
		return shellWords(l)
	}
	checkShards(t, "github-actions.yml", shards, whole, func(i int) []string { return list(gh(i)) })

	// Kubernetes: the indexed Job's command, for each completion index.
	var job map[string]any
	for _, d := range readYAMLDocs(t, "../../docs/recipes/kubernetes/indexed-job.yaml") {
		if d["kind"] == "Job" {
			job = d
		}
	}
	completions, _ := strconv.Atoi(dig(job, "spec", "completions"))
	args := dig(job, "spec", "template", "spec", "containers", "0", "args", "0")
	_, k8s, ok := strings.Cut(strings.ReplaceAll(args, "\\\n", " "), "exec clapper ")
	if !ok || completions < 2 {
		t.Fatalf("no exec clapper in the indexed Job's command, or %d completions: %s", completions, args)
	}
	k8sArgs := func(i int) []string {
		l := strings.NewReplacer("/scripts", scripts, "$shard", strconv.Itoa(i), "$SHARDS", strconv.Itoa(completions), "/work/out/", dir+"/k8s/").Replace(k8s)
		return shellWords(l)
	}
	checkShards(t, "indexed-job.yaml", completions, whole, func(i int) []string { return list(k8sArgs(i)) })
}

// checkShards says where shards 1..n of a recipe do not film every script
// of whole exactly once.
func checkShards(t *testing.T, recipe string, n int, whole []string, shard func(i int) []string) {
	t.Helper()
	seen := map[string]int{}
	for i := 1; i <= n; i++ {
		part := shard(i)
		if len(part) == 0 {
			t.Errorf("%s: shard %d/%d films nothing", recipe, i, n)
		}
		for _, s := range part {
			seen[s]++
		}
	}
	for _, s := range whole {
		if seen[s] != 1 {
			t.Errorf("%s: %s is filmed by %d of the %d shards, want 1", recipe, s, seen[s], n)
		}
	}
	if len(seen) != len(whole) {
		t.Errorf("%s: the shards film %d scripts, the suite has %d", recipe, len(seen), len(whole))
	}
}

// shellWords splits a command line as sh would when it holds only words,
// double-quoted words and spaces.
func shellWords(l string) []string {
	var out []string
	var cur strings.Builder
	quoted, in := false, false
	for _, r := range l {
		switch {
		case r == '"':
			quoted, in = !quoted, true
		case (r == ' ' || r == '\t' || r == '\n') && !quoted:
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func readYAMLDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	for _, part := range strings.Split(string(b), "\n---\n") {
		var d map[string]any
		if err := yaml.Unmarshal([]byte(part), &d); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
	return docs
}

func readYAML(t *testing.T, path string) map[string]any { return readYAMLDocs(t, path)[0] }

// dig walks maps by key and lists by index, as a string ("" when missing).
func dig(v any, keys ...string) string {
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(b))
}
