package rootpath

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "github.com/rewind-lsp/rewind-lsp/testkit/wine" // removals work under wine
)

// TestDefaultStoreDirPerSystem: without REWIND_LSP_HOME the store lies in
// the system's place for an application's state.
func TestDefaultStoreDirPerSystem(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	t.Setenv("REWIND_LSP_HOME", "")
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "xdg"))
	t.Setenv("LOCALAPPDATA", filepath.Join(home, "AppData", "Local"))
	dir, err := DefaultStoreDir(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"darwin":  filepath.Join(home, "Library", "Application Support", "rewind-lsp"),
		"windows": filepath.Join(home, "AppData", "Local", "rewind-lsp"),
	}[runtime.GOOS]
	if want == "" {
		want = filepath.Join(home, "xdg", "rewind-lsp")
	}
	if filepath.Dir(dir) != want || !strings.HasPrefix(filepath.Base(dir), filepath.Base(root)+"-") {
		t.Fatalf("store %s, want one in %s", dir, want)
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Setenv("XDG_STATE_HOME", "")
		if dir, _ := DefaultStoreDir(root); filepath.Dir(dir) != filepath.Join(home, ".local", "state", "rewind-lsp") {
			t.Fatalf("store without XDG_STATE_HOME: %s", dir)
		}
	}
}

// TestFoldCase: a path typed in another case is respelled as the folders
// list their entries (what a case-insensitive file system does); a part
// that does not exist is kept as typed.
func TestFoldCase(t *testing.T) {
	base := t.TempDir()
	os.MkdirAll(filepath.Join(base, "Projects", "MyApp", "src"), 0o755)
	typed := filepath.Join(base, "projects", "myapp", "SRC", "new", "File.go")
	want := filepath.Join(base, "Projects", "MyApp", "src", "new", "File.go")
	if got := foldCase(typed); got != want {
		t.Fatalf("foldCase(%s) = %s, want %s", typed, got, want)
	}
	if got := foldCase(want); got != want {
		t.Fatalf("an exact spelling changed: %s", got)
	}
	// Two entries equal but for case (a case-sensitive folder): the typed
	// spelling stays.
	os.Mkdir(filepath.Join(base, "Dup"), 0o755)
	if err := os.Mkdir(filepath.Join(base, "dUP"), 0o755); err == nil {
		if got := foldCase(filepath.Join(base, "dup")); got != filepath.Join(base, "dup") {
			t.Fatalf("ambiguous: %s", got)
		}
	}
}

// TestOneRootOneStore: a root reached through its path, a link to it, or
// (where the file system ignores case) another case has one store.
func TestOneRootOneStore(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "Work", "Proj")
	os.MkdirAll(root, 0o755)
	t.Setenv("REWIND_LSP_HOME", t.TempDir())
	spellings := []string{root, root + string(filepath.Separator), filepath.Join(root, "..", "Proj")}
	if err := os.Symlink(root, filepath.Join(base, "link")); err == nil {
		if fi, err := os.Lstat(filepath.Join(base, "link")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			spellings = append(spellings, filepath.Join(base, "link")) // not under wine: no links
		}
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		spellings = append(spellings, filepath.Join(base, "work", "PROJ"))
	}
	first, err := DefaultStoreDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spellings {
		if dir, _ := DefaultStoreDir(s); dir != first {
			t.Errorf("%s has store %s, %s has %s", s, dir, root, first)
		}
	}
	if runtime.GOOS == "windows" {
		real, _ := RealRoot(strings.ToLower(root[:1]) + root[1:])
		if real[0] < 'A' || real[0] > 'Z' || strings.Contains(real, "/") {
			t.Fatalf("canonical root %s: want an upper-case drive letter and \\ separators", real)
		}
		if long, _ := RealRoot(`\\?\` + root); long != real {
			t.Fatalf(`\\?\ root %s, want %s`, long, real)
		}
	}
}
