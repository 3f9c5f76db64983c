package e2e_test

// The release build: goreleaser.yaml is valid, a snapshot release builds the Raspberry Pi
// archives and packages, and the .deb holds the binary, the systemd unit and the default
// configuration.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// releaseConfig is the goreleaser configuration at the repository root.
var releaseConfig = filepath.Join(repoRoot, "goreleaser.yaml")

func TestRelease(t *testing.T) {
	goreleaser := releaseGoreleaser(t)

	t.Run("goreleaser check", func(t *testing.T) {
		start := time.Now()
		check := exec.CommandContext(t.Context(), goreleaser, "check", "--config", "goreleaser.yaml")
		check.Dir = repoRoot
		out, err := check.CombinedOutput()
		if err != nil {
			t.Fatalf("goreleaser check: %v\n%s", err, out)
		}
		t.Logf("goreleaser check took %s", time.Since(start).Round(time.Millisecond))
	})

	t.Run("the packaged configuration file is valid, its examples too", func(t *testing.T) {
		conf, err := os.ReadFile(filepath.Join(repoRoot, "packaging/morningdeck.conf"))
		if err != nil {
			t.Fatal(err)
		}
		out := releaseConfigShow(t, filepath.Join(repoRoot, "packaging/morningdeck.conf"))
		for _, want := range []string{"/var/lib/morningdeck/morningdeck.db", "127.0.0.1:7777", "json"} {
			if !strings.Contains(out, want) {
				t.Errorf("config show of the packaged file lacks %q:\n%s", want, out)
			}
		}
		// Every commented example, uncommented, is a setting the binary knows.
		examples := regexp.MustCompile(`(?m)^# ?([a-z][a-z0-9-]* = )`).ReplaceAll(conf, []byte("$1"))
		if bytes.Equal(examples, conf) {
			t.Fatal("the packaged configuration file has no commented examples")
		}
		path := filepath.Join(t.TempDir(), "examples.conf")
		if err := os.WriteFile(path, examples, 0o600); err != nil {
			t.Fatal(err)
		}
		out = releaseConfigShow(t, path)
		for _, want := range []string{"smtp.example.com", "llama3.2"} {
			if !strings.Contains(out, want) {
				t.Errorf("config show of the uncommented examples lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("snapshot", func(t *testing.T) {
		// The Raspberry Pi targets only (linux arm64 and armv7): they make the packages the
		// Raspberry Pi installs, and TestQemu has compiled them already (same flags, same build
		// cache), so this costs links, not compiles. The other four targets cost a cold compile
		// each; `make release-snapshot` builds all six and the .deb/.rpm for amd64 too.
		conf, err := os.ReadFile(releaseConfig)
		if err != nil {
			t.Fatal(err)
		}
		for _, narrow := range [][2]string{
			{"goos: [linux, darwin, windows]", "goos: [linux]"},
			{"goarch: [amd64, arm64, arm]", "goarch: [arm64, arm]"},
		} {
			if !bytes.Contains(conf, []byte(narrow[0])) {
				t.Fatalf("%s no longer has the line %q that this test narrows to %q: update the test", releaseConfig, narrow[0], narrow[1])
			}
			conf = bytes.Replace(conf, []byte(narrow[0]), []byte(narrow[1]), 1)
		}
		dist := filepath.Join(t.TempDir(), "dist")
		conf = append(conf, "\ndist: "+dist+"\n"...)
		confPath := filepath.Join(t.TempDir(), "goreleaser.yaml")
		if err := os.WriteFile(confPath, conf, 0o644); err != nil {
			t.Fatal(err)
		}

		ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
		defer cancel()
		start := time.Now()
		cmd := exec.CommandContext(ctx, goreleaser, "release", "--snapshot", "--clean", "--skip=publish", "--config", confPath)
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("goreleaser release --snapshot: %v\n%s", err, out)
		}
		t.Logf("goreleaser release --snapshot (linux arm64, armv7) took %s", time.Since(start).Round(time.Second))

		checksums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, arch := range []string{"arm64", "armv7"} {
			archive := releaseGlob(t, dist, "morningdeck_*_linux_"+arch+".tar.gz")
			if !bytes.Contains(checksums, []byte(filepath.Base(archive))) {
				t.Errorf("checksums.txt does not list %s", filepath.Base(archive))
			}
			files := releaseTarGz(t, archive)
			for _, want := range []string{"morningdeck", "README.md", "LICENSE"} {
				if _, ok := files[want]; !ok {
					t.Errorf("%s lacks %s (has %v)", filepath.Base(archive), want, releaseNames(files))
				}
			}
		}
		for _, arch := range []string{"aarch64", "armv7hl"} {
			rpm := releaseGlob(t, dist, "morningdeck-*."+arch+".rpm")
			if !bytes.Contains(checksums, []byte(filepath.Base(rpm))) {
				t.Errorf("checksums.txt does not list %s", filepath.Base(rpm))
			}
		}
		cask, err := os.ReadFile(filepath.Join(dist, "homebrew", "Casks", "morningdeck.rb"))
		if err != nil {
			t.Fatalf("the Homebrew cask was not written: %v", err)
		}
		if !bytes.Contains(cask, []byte(`binary "morningdeck"`)) {
			t.Errorf("the cask does not install the binary:\n%s", cask)
		}

		for _, arch := range []string{"arm64", "armhf"} {
			t.Run(arch+".deb", func(t *testing.T) {
				deb := releaseGlob(t, dist, "morningdeck_*_"+arch+".deb")
				releaseCheckDeb(t, deb, arch)
			})
		}
	})
}

// releaseCheckDeb inspects a .deb with dpkg-deb: its files, its control data, and its binary.
func releaseCheckDeb(t *testing.T, deb, arch string) {
	t.Helper()
	dpkgDeb := func(action string, controlFiles ...string) string {
		t.Helper()
		out, err := exec.Command("dpkg-deb", append([]string{action, deb}, controlFiles...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg-deb %s %s %s: %v\n%s", action, filepath.Base(deb), strings.Join(controlFiles, " "), err, out)
		}
		return string(out)
	}
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		missingTool(t, "dpkg-deb not found: the test inspects the .deb with it (Debian's dpkg package)")
	}

	contents := dpkgDeb("-c")
	for _, want := range []string{
		"-rwxr-xr-x root/root .* ./usr/bin/morningdeck\n",
		"-rw-r--r-- root/root .* ./usr/lib/systemd/system/morningdeck.service\n",
		"-rw-r----- root/root .* ./etc/morningdeck/morningdeck.conf\n",
	} {
		if !regexp.MustCompile(want).MatchString(contents) {
			t.Errorf("%s has no entry like %q:\n%s", filepath.Base(deb), want, contents)
		}
	}

	info := dpkgDeb("-I")
	for _, want := range []string{"Package: morningdeck", "Architecture: " + arch, "preinst", "postinst", "prerm", "postrm"} {
		if !strings.Contains(info, want) {
			t.Errorf("dpkg-deb -I %s lacks %q:\n%s", filepath.Base(deb), want, info)
		}
	}
	if conffiles := dpkgDeb("-I", "conffiles"); strings.TrimSpace(conffiles) != "/etc/morningdeck/morningdeck.conf" {
		t.Errorf("conffiles = %q, want the configuration file (so upgrades keep the user's changes)", conffiles)
	}
	postinst := dpkgDeb("-I", "postinst")
	if !strings.Contains(postinst, "systemctl enable morningdeck.service") {
		t.Errorf("postinst does not enable the service:\n%s", postinst)
	}
	preinst := dpkgDeb("-I", "preinst")
	if !strings.Contains(preinst, "--home-dir /var/lib/morningdeck") {
		t.Errorf("preinst does not create the morningdeck user with its home in /var/lib/morningdeck:\n%s", preinst)
	}

	// The packaged files are the ones in packaging/.
	tarball, err := exec.Command("dpkg-deb", "--fsys-tarfile", deb).Output()
	if err != nil {
		t.Fatalf("dpkg-deb --fsys-tarfile: %v", err)
	}
	files := releaseTar(t, bytes.NewReader(tarball))
	for packaged, source := range map[string]string{
		"./usr/lib/systemd/system/morningdeck.service": "packaging/morningdeck.service",
		"./etc/morningdeck/morningdeck.conf":           "packaging/morningdeck.conf",
	} {
		want, err := os.ReadFile(filepath.Join(repoRoot, source))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(files[packaged], want) {
			t.Errorf("%s in the package differs from %s", packaged, source)
		}
	}
	unit := string(files["./usr/lib/systemd/system/morningdeck.service"])
	for _, want := range []string{
		"ExecStart=/usr/bin/morningdeck serve --config /etc/morningdeck/morningdeck.conf --no-browser",
		"User=morningdeck", "Restart=on-failure", "NoNewPrivileges=yes", "ProtectSystem=strict",
		"ReadWritePaths=/var/lib/morningdeck", "PrivateTmp=yes", "WantedBy=multi-user.target",
	} {
		if !strings.Contains(unit, want+"\n") {
			t.Errorf("the systemd unit lacks %q", want)
		}
	}

	// The packaged binary runs (the arm64 one under qemu, as in TestQemu): the release ldflags
	// set its version, date and commit.
	if arch == "arm64" {
		bin := filepath.Join(t.TempDir(), "morningdeck")
		if err := os.WriteFile(bin, files["./usr/bin/morningdeck"], 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := qemuCommand(t, t.Context(), qemuEmulator(t, "qemu-aarch64-static"), bin, "version").CombinedOutput()
		if err != nil {
			t.Fatalf("the packaged binary: %v\n%s", err, out)
		}
		m := regexp.MustCompile(`^morningdeck (\S+) \(commit (\S+), built (\S+), linux/arm64\)`).FindStringSubmatch(string(out))
		if m == nil || m[1] == "dev" || m[3] == "unknown" {
			t.Fatalf("the packaged binary's version has no release stamp: %s", out)
		}
		// goreleaser knows the commit only in a clone with a remote (a snapshot without one says "none").
		if remotes, _ := exec.Command("git", "remote").Output(); len(bytes.TrimSpace(remotes)) > 0 {
			head, err := exec.Command("git", "rev-parse", "HEAD").Output()
			if err != nil {
				t.Fatal(err)
			}
			if m[2] != strings.TrimSpace(string(head)) {
				t.Errorf("the packaged binary says commit %s, want HEAD %s", m[2], head)
			}
		}
	}
}

// releaseGoreleaser finds goreleaser where `make deps` installs it (`go install`), else on PATH,
// and checks it is the version the Makefile pins.
func releaseGoreleaser(t *testing.T) string {
	t.Helper()
	makefile, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GORELEASER_VERSION\s*:?=\s*(\S+)`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile does not pin GORELEASER_VERSION")
	}
	pinned := string(m[1])
	install := "`make deps` (run by `make test`) installs it: go install github.com/goreleaser/goreleaser/v2@" + pinned

	var path string
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(string(out), "\n")
		bindir := strings.TrimSpace(lines[0])
		if bindir == "" && len(lines) > 1 {
			bindir = filepath.Join(filepath.SplitList(strings.TrimSpace(lines[1]))[0], "bin")
		}
		if p := filepath.Join(bindir, "goreleaser"); releaseExecutable(p) {
			path = p
		}
	}
	if path == "" {
		p, err := exec.LookPath("goreleaser")
		if err != nil {
			missingTool(t, "goreleaser not found: %s", install)
		}
		path = p
	}
	out, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", path, err, out)
	}
	if v := regexp.MustCompile(`(?m)^GitVersion:\s*(\S+)`).FindSubmatch(out); v == nil || string(v[1]) != pinned {
		t.Fatalf("%s is not goreleaser %s, the version the Makefile pins: %s\n%s", path, pinned, install, out)
	}
	return path
}

func releaseExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// releaseConfigShow runs `morningdeck config show` on a configuration file; it fails on any
// unknown setting or bad value.
func releaseConfigShow(t *testing.T, conf string) string {
	t.Helper()
	cmd := exec.Command(binary, "--config", conf, "config", "show")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MORNINGDECK_") { // the environment would win over the file
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("morningdeck --config %s config show: %v\n%s", conf, err, out)
	}
	return string(out)
}

func releaseGlob(t *testing.T, dir, pattern string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(matches) != 1 {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("want one %s in dist, found %v; dist has %v", pattern, matches, names)
	}
	return matches[0]
}

func releaseTarGz(t *testing.T, path string) map[string][]byte {
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
	return releaseTar(t, gz)
}

func releaseTar(t *testing.T, r io.Reader) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = b
	}
}

func releaseNames(files map[string][]byte) []string {
	var names []string
	for name := range files {
		names = append(names, name)
	}
	return names
}
