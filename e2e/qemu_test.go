package e2e_test

// The Raspberry Pi path: the binary cross-built for linux/arm64 and linux/arm (GOARM=7) serves,
// fetches a feed and shuts down cleanly, run under qemu-user emulation.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// qemuFeed is a small real-world RSS feed from the shared corpus, and the titles of its items.
const qemuFeed = "../testdata/corpus/feeds/ITunesWithSpacesInAttributes.xml"

var qemuFeedTitles = []string{"Shake Shake Shake Your Spices", "Socket Wrench Shootout", "Red, Whine, & Blue"}

type qemuTarget struct {
	name   string
	goarch string
	goarm  string
	qemu   string // Debian's qemu-user-static emulator for the architecture
	uname  string // what `morningdeck version` prints as GOOS/GOARCH
}

func TestQemu(t *testing.T) {
	feed, err := os.ReadFile(qemuFeed)
	if err != nil {
		t.Fatalf("the feed corpus should be at %s: %v", qemuFeed, err)
	}
	feedSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
		_, _ = w.Write(feed)
	}))
	t.Cleanup(feedSrv.Close)

	for _, target := range []qemuTarget{
		{name: "linux-arm64", goarch: "arm64", qemu: "qemu-aarch64-static", uname: "linux/arm64"},
		{name: "linux-armv7", goarch: "arm", goarm: "7", qemu: "qemu-arm-static", uname: "linux/arm"},
	} {
		t.Run(target.name, func(t *testing.T) {
			emulator := qemuEmulator(t, target.qemu)
			bin := qemuBuild(t, target)

			// The emulated binary runs at all and is the architecture it claims.
			out, err := qemuCommand(t, t.Context(), emulator, bin, "version").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "qemu-test") || !strings.Contains(string(out), target.uname) {
				t.Fatalf("morningdeck version under %s: %v\n%s", target.qemu, err, out)
			}

			dir := t.TempDir()
			addr := "127.0.0.1:" + strconv.Itoa(qemuFreePort(t))
			cmd := qemuCommand(t, context.Background(), emulator, bin, "serve", "--addr", addr, "--no-browser", "--data-dir", dir)
			logs := &qemuLog{}
			cmd.Stdout, cmd.Stderr = logs, logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			stopped := false
			t.Cleanup(func() {
				if !stopped {
					_ = cmd.Process.Kill()
					<-exited
				}
			})
			fail := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("%s\n--- output of morningdeck under %s:\n%s", fmt.Sprintf(format, args...), target.qemu, logs.String())
			}
			base := "http://" + addr

			// Wait until the server answers; emulation makes the start slow.
			client := &http.Client{Timeout: 30 * time.Second}
			deadline := time.Now().Add(3 * time.Minute)
			for {
				resp, err := client.Get(base + "/api/sources")
				if err == nil {
					_ = resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						break
					}
				}
				select {
				case err := <-exited:
					stopped = true
					fail("the server exited before it answered: %v", err)
				default:
				}
				if time.Now().After(deadline) {
					fail("the server did not answer on %s within 3 minutes (last error: %v)", addr, err)
				}
				time.Sleep(500 * time.Millisecond)
			}

			// Add the feed through the JSON API; adding enqueues its first fetch at once.
			body, _ := json.Marshal(map[string]string{"url": feedSrv.URL + "/feed.xml", "type": "rss"})
			resp, err := client.Post(base+"/api/sources", "application/json", bytes.NewReader(body))
			if err != nil {
				fail("POST /api/sources: %v", err)
			}
			created, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				fail("POST /api/sources: %s: %s", resp.Status, created)
			}

			// Its items arrive.
			var items []qemuItem
			deadline = time.Now().Add(3 * time.Minute)
			for {
				items = nil
				if resp, err := client.Get(base + "/api/items?limit=50"); err == nil {
					if resp.StatusCode == http.StatusOK {
						_ = json.NewDecoder(resp.Body).Decode(&items)
					}
					_ = resp.Body.Close()
				}
				if qemuHasTitles(items, qemuFeedTitles) {
					break
				}
				if time.Now().After(deadline) {
					fail("the feed's items did not arrive within 3 minutes; GET /api/items has %+v", items)
				}
				time.Sleep(time.Second)
			}
			if items[0].SourceName != "All About Everything" {
				t.Errorf("items come from %q, want the feed's title", items[0].SourceName)
			}

			// SIGTERM: the process shuts down and exits with status 0.
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				stopped = true
				if err != nil {
					fail("exit after SIGTERM: %v", err)
				}
			case <-time.After(2 * time.Minute):
				fail("the process did not exit within 2 minutes of SIGTERM")
			}
			if !strings.Contains(logs.String(), "stopped") {
				fail("the process exited without logging that it stopped")
			}
		})
	}
}

// qemuEmulator finds the qemu-user-static emulator; binfmt is not relied on.
func qemuEmulator(t *testing.T, name string) string {
	t.Helper()
	for _, p := range []string{filepath.Join("/usr/bin", name), name} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	missingTool(t, "%s not found: `make test` installs it (its deps target runs `apt-get install qemu-user-static`); "+
		"or install it yourself: sudo apt-get install qemu-user-static", name)
	return ""
}

// qemuBuild cross-builds the binary for target into a temporary directory. It builds with
// -trimpath, like the release build, so the two share the compile cache.
func qemuBuild(t *testing.T, target qemuTarget) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "morningdeck-"+target.name)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-X main.version=qemu-test", "-o", bin, repoRoot)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+target.goarch, "GOARM="+target.goarm, "GOARM64=v8.0")
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-build for %s: %v\n%s", target.name, err, out)
	}
	t.Logf("cross-built for %s in %s", target.name, time.Since(start).Round(time.Second))
	return bin
}

// qemuCommand runs the foreign binary under the emulator explicitly, without the MORNINGDECK_*
// environment or configuration file of whoever runs the tests.
func qemuCommand(t *testing.T, ctx context.Context, emulator, bin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, emulator, append([]string{bin}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MORNINGDECK_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "MORNINGDECK_LOG_LEVEL=info", "XDG_CONFIG_HOME="+t.TempDir())
	return cmd
}

// qemuFreePort returns a TCP port on the loopback interface that nothing listens on.
func qemuFreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// qemuItem is the part of an item of GET /api/items that the test looks at.
type qemuItem struct {
	Title      string `json:"title"`
	SourceName string `json:"sourceName"`
}

func qemuHasTitles(items []qemuItem, titles []string) bool {
	have := map[string]bool{}
	for _, it := range items {
		have[it.Title] = true
	}
	for _, title := range titles {
		if !have[title] {
			return false
		}
	}
	return true
}

// qemuLog collects a process's output for failure messages.
type qemuLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *qemuLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *qemuLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
