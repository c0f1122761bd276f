package e2e_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// releaseTargets are the platforms a release covers, with the VS Code
// target that names their .vsix.
var releaseTargets = []struct{ goos, goarch, vscode string }{
	{"linux", "amd64", "linux-x64"},
	{"linux", "arm64", "linux-arm64"},
	{"darwin", "amd64", "darwin-x64"},
	{"darwin", "arm64", "darwin-arm64"},
	{"windows", "amd64", "win32-x64"},
}

// TestRelease checks what scripts/release.sh built into
// $REWIND_RELEASE_DIR: every archive holds the binary and the README, each
// binary is an executable of its system's format for its architecture, each
// .vsix carries the same binary where the extension looks for it, and
// SHA256SUMS lists them all with their hashes. scripts/test.sh's release
// suite builds a release from a clean clone and runs this test on it.
func TestRelease(t *testing.T) {
	dir := os.Getenv("REWIND_RELEASE_DIR")
	if dir == "" {
		t.Skip("no release to check: scripts/test.sh's release suite builds one (REWIND_RELEASE_DIR)")
	}
	var pkg struct{ Version string }
	data, err := os.ReadFile("../editors/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil || pkg.Version == "" {
		t.Fatalf("package.json version: %v", err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{}
	for _, tg := range releaseTargets {
		name := fmt.Sprintf("rewind-lsp_%s_%s_%s", pkg.Version, tg.goos, tg.goarch)
		exe := "rewind-lsp"
		var files map[string]archived
		if tg.goos == "windows" {
			exe += ".exe"
			name += ".zip"
			files = readZip(t, filepath.Join(dir, name))
		} else {
			name += ".tar.gz"
			files = readTarGz(t, filepath.Join(dir, name))
		}
		want = append(want, name)
		if got := keys(files); got != exe+" README.md" && got != "README.md "+exe {
			t.Errorf("%s holds %s, want %s and README.md", name, got, exe)
		}
		if !bytes.Equal(files["README.md"].data, readme) {
			t.Errorf("%s: README.md is not the tree's", name)
		}
		bin := files[exe]
		if tg.goos != "windows" && bin.mode&0o111 == 0 {
			t.Errorf("%s: %s is not executable (%v)", name, exe, bin.mode)
		}
		checkBinary(t, name, bin.data, tg.goos, tg.goarch)

		vsix := fmt.Sprintf("rewind-lsp-%s-%s.vsix", tg.vscode, pkg.Version)
		want = append(want, vsix)
		ext := readZip(t, filepath.Join(dir, vsix))
		inside := "extension/server/" + tg.vscode + "/" + exe
		if !bytes.Equal(ext[inside].data, bin.data) {
			t.Errorf("%s: %s is missing or not the archive's binary", vsix, inside)
		}
		if m := string(ext["extension.vsixmanifest"].data); !strings.Contains(m, `TargetPlatform="`+tg.vscode+`"`) {
			t.Errorf("%s: the manifest names no target %s", vsix, tg.vscode)
		}
		if tg.goos == runtime.GOOS && tg.goarch == runtime.GOARCH {
			checkVersion(t, bin.data, pkg.Version)
		}
	}
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, file, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", line)
		}
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatalf("SHA256SUMS lists %s: %v", file, err)
		}
		h := sha256.Sum256(data)
		if hex.EncodeToString(h[:]) != sum {
			t.Errorf("SHA256SUMS: %s does not match", file)
		}
		listed[file] = true
	}
	for _, w := range want {
		if !listed[w] {
			t.Errorf("SHA256SUMS does not list %s", w)
		}
	}
	if len(listed) != len(want) {
		t.Errorf("SHA256SUMS lists %d files, want %d", len(listed), len(want))
	}
}

// checkBinary checks that data is an executable for goos/goarch.
func checkBinary(t *testing.T, name string, data []byte, goos, goarch string) {
	t.Helper()
	r := bytes.NewReader(data)
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			t.Errorf("%s: not ELF: %v", name, err)
			return
		}
		machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Class != elf.ELFCLASS64 || f.Machine != machine || f.Type != elf.ET_EXEC {
			t.Errorf("%s: ELF %v %v %v, want a 64-bit %v executable", name, f.Class, f.Machine, f.Type, machine)
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			t.Errorf("%s: not Mach-O: %v", name, err)
			return
		}
		cpu := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != cpu || f.Type != macho.TypeExec {
			t.Errorf("%s: Mach-O %v %v, want a %v executable", name, f.Cpu, f.Type, cpu)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			t.Errorf("%s: not PE: %v", name, err)
			return
		}
		oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
		if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || !ok || oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI ||
			f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
			t.Errorf("%s: PE machine %#x, want an amd64 console executable", name, f.Machine)
		}
	}
}

// checkVersion runs a release binary built for this machine: `version`
// names the release's version and the commit it was built from.
func checkVersion(t *testing.T, bin []byte, version string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rewind-lsp")
	if err := os.WriteFile(p, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(p, "version").Output()
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	commit, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	line := strings.TrimSpace(string(out))
	if want := "rewind-lsp " + version + "+" + strings.TrimSpace(string(commit))[:12]; line != want {
		t.Errorf("version printed %q, want %q (the version and the commit)", line, want)
	}
}

type archived struct {
	data []byte
	mode os.FileMode
}

func keys(m map[string]archived) string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return strings.Join(k, " ")
}

func readTarGz(t *testing.T, path string) map[string]archived {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]archived{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[h.Name] = archived{data, h.FileInfo().Mode()}
	}
}

func readZip(t *testing.T, path string) map[string]archived {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer z.Close()
	out := map[string]archived{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %s: %v", path, f.Name, err)
		}
		out[f.Name] = archived{data, f.Mode()}
	}
	return out
}
