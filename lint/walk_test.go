package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree creates files (name → content; a name ending in / is a directory;
// "name -> target" is a symbolic link) under a new temporary directory.
func tree(t *testing.T, entries ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, e := range entries {
		if name, target, ok := strings.Cut(e, " -> "); ok {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		name, content, _ := strings.Cut(e, "=")
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o777); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// walk returns what Walk yields under dir, relative to rel: paths, and
// "ERR path: reason" for inputs with Err.
func walk(t *testing.T, w *Walker, dir, rel string) []string {
	t.Helper()
	var out []string
	w.Walk(dir, func(in Input) bool {
		p, err := filepath.Rel(rel, in.Path)
		if err != nil {
			t.Fatal(err)
		}
		p = filepath.ToSlash(p)
		if in.Err != nil {
			p = "ERR " + p + ": " + strings.ReplaceAll(in.Err.Error(), rel+string(filepath.Separator), "")
		}
		out = append(out, p)
		return true
	})
	return out
}

func TestWalk(t *testing.T) {
	outside := tree(t, "o.jsonl=")
	root := tree(t,
		".gitignore=*.tmp\nbuild/\n!keep.tmp\n/anchored.jsonl\n# comment\n\n",
		"a/.gitignore=local.jsonl\n!also.tmp\n",
		"a/local.jsonl=", "a/ok.jsonl=", "a/also.tmp=", "a/deeper/local.jsonl=",
		"b/anchored.jsonl=", "anchored.jsonl=", "x.tmp=", "keep.tmp=", "build/f.jsonl=",
		".git/config=", ".work/events.jsonl=", "vendor/v.jsonl=", "z.jsonl=",
		"loop -> .", "link -> a", "dangling -> nowhere.jsonl", "sub/ext -> "+outside,
	)
	cfg := &Config{Dir: root, Exclude: []string{"vendor/**"}}
	got := walk(t, &Walker{Config: cfg}, root, root)
	want := []string{
		".gitignore", ".work/events.jsonl",
		"a/.gitignore", "a/also.tmp", "a/ok.jsonl",
		"b/anchored.jsonl",
		"ERR dangling: dangling symbolic link (dangling -> nowhere.jsonl: no such file or directory); fix or remove the link, or exclude it",
		"keep.tmp",
		"z.jsonl",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("walk:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Walking a subdirectory applies only its own .gitignore files outside
	// a git tree.
	got = walk(t, &Walker{}, filepath.Join(root, "build"), root)
	if strings.Join(got, ",") != "build/f.jsonl" {
		t.Errorf("walk build: %v", got)
	}
}

func TestWalkGitTreeAncestors(t *testing.T) {
	root := tree(t, ".git/info/exclude=*.secret\n", ".gitignore=logs/tmp/\n*.bak\n",
		"logs/a.jsonl=", "logs/a.bak=", "logs/a.secret=", "logs/tmp/t.jsonl=", "logs/sub/.gitignore=!*.bak\n", "logs/sub/s.bak=")
	got := walk(t, &Walker{}, filepath.Join(root, "logs"), root)
	want := "logs/a.jsonl,logs/sub/.gitignore,logs/sub/s.bak"
	if strings.Join(got, ",") != want {
		t.Errorf("walk logs: %v, want %s", got, want)
	}
	// A directory the ancestors ignore is still walked when named.
	got = walk(t, &Walker{}, filepath.Join(root, "logs", "tmp"), root)
	if strings.Join(got, ",") != "logs/tmp/t.jsonl" {
		t.Errorf("walk logs/tmp: %v", got)
	}
}

func TestWalkSymlinkLoopOnly(t *testing.T) {
	root := tree(t, "d/f.jsonl=", "d/up -> ..", "d/self -> .")
	got := walk(t, &Walker{}, root, root)
	if strings.Join(got, ",") != "d/f.jsonl" {
		t.Errorf("walk: %v", got)
	}
}

// TestWalkStaysInRoot: a symbolic link whose target lies outside the
// walked directory (the whole machine, a file beside the tree) is skipped,
// and reported as skipped with ReportSkipped; links that resolve inside the
// root, even through a path that leaves it and comes back, are followed.
func TestWalkStaysInRoot(t *testing.T) {
	outside := tree(t, "o.jsonl=", "d/p.jsonl=")
	root := tree(t, "a/in.jsonl=",
		"slash -> /", "up -> ..", "ext.jsonl -> "+filepath.Join(outside, "o.jsonl"), "extdir -> "+filepath.Join(outside, "d"),
		"back -> ../"+"ROOT"+"/a", "rel.jsonl -> a/in.jsonl")
	// "back" leaves the root by name and comes back into it.
	back := filepath.Join(root, "back")
	if err := os.Remove(back); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", filepath.Base(root), "a"), back); err != nil {
		t.Fatal(err)
	}
	got := walk(t, &Walker{}, root, root)
	want := "a/in.jsonl,rel.jsonl"
	if strings.Join(got, ",") != want {
		t.Errorf("walk: %v, want %s", got, want)
	}
	var skipped []string
	(&Walker{ReportSkipped: true}).Walk(root, func(in Input) bool {
		if in.Skipped != "" {
			rel, _ := filepath.Rel(root, in.Path)
			skipped = append(skipped, rel+": "+in.Skipped)
		}
		return true
	})
	wantSkipped := []string{"ext.jsonl: " + ReasonOutside, "extdir: " + ReasonOutside, "slash: " + ReasonOutside, "up: " + ReasonOutside}
	if strings.Join(skipped, "\n") != strings.Join(wantSkipped, "\n") {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(skipped, "\n"), strings.Join(wantSkipped, "\n"))
	}
}
