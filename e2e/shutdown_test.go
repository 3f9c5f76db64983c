package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM during a job pinned on CPU (one that ignores its context) still ends the process
// within the grace period and a few seconds, and the job stays in its queue, to be retried
// after its timeout as after a crash. No real input pins a worker any more (parsing has a
// budget and stops when cancelled), so the job comes from a test-only hook: testhooks.go,
// compiled only with -tags testhooks into the binary this test builds.
func TestShutdownWithPinnedJob(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "morningdeck-testhooks")
	build := exec.Command("go", "build", "-tags", "testhooks", "-o", bin, repoRoot)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	logs := &syncBuffer{}
	cmd := exec.Command(bin, "--data-dir", dir, "serve", "--no-browser", "--addr", "127.0.0.1:0", "--shutdown-grace", "1s")
	cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "MORNINGDECK_TEST_PIN_JOB=1", "XDG_CONFIG_HOME="+t.TempDir())
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), "test-pin: job pinned"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pinned job never started:\n%s", logs.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	// Grace (1 s) + 5 s.
	select {
	case <-done:
		t.Logf("exited %s after SIGTERM", time.Since(signalled).Round(10*time.Millisecond))
	case <-time.After(6 * time.Second):
		t.Fatalf("still running 6 s after SIGTERM with a pinned job:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "ignored cancellation") {
		t.Errorf("the log does not say a job was left behind:\n%s", logs.String())
	}
	db := openRead(t, dir)
	var n int
	if err := db.QueryRow(`select count(*) from goqite where queue = 'process'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d jobs in the process queue after the exit, want the pinned one, to be retried after its timeout", n)
	}
}
