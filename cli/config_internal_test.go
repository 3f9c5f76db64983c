package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --trusted-proxy is set like every flag: on the command line (repeated or a comma list), by
// MORNINGDECK_TRUSTED_PROXY, or in the configuration file; a value that is not an address or
// a range is refused with the flag's name.
func TestTrustedProxyFlag(t *testing.T) {
	show := func(t *testing.T, args ...string) string {
		t.Helper()
		root := newRoot()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetArgs(append(args, "config", "show"))
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "trusted-proxy ") {
				return strings.Join(strings.Fields(line), " ")
			}
		}
		t.Fatalf("no trusted-proxy in %s", out.String())
		return ""
	}
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	conf := filepath.Join(dir, "md.conf")
	if err := os.WriteFile(conf, []byte("trusted-proxy = 10.0.0.0/8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := show(t, "--config", conf); got != "trusted-proxy = [10.0.0.0/8] # file" {
		t.Errorf("from the file: %q", got)
	}
	t.Setenv("MORNINGDECK_TRUSTED_PROXY", "127.0.0.1,::1")
	if got := show(t, "--config", conf); got != "trusted-proxy = [127.0.0.1,::1] # env" {
		t.Errorf("from the environment: %q", got)
	}
	if got := show(t, "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "192.168.0.0/16"); got != "trusted-proxy = [127.0.0.1,192.168.0.0/16] # flag" {
		t.Errorf("from the command line: %q", got)
	}

	p, err := Prefixes("trusted-proxy", []string{"127.0.0.1", " 10.1.2.3/8", "::1", "::ffff:192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range p {
		got = append(got, x.String())
	}
	if strings.Join(got, ",") != "127.0.0.1/32,10.0.0.0/8,::1/128,192.0.2.1/32" {
		t.Errorf("parsed: %v", got)
	}
	if _, err := Prefixes("trusted-proxy", []string{"proxy.local"}); err == nil || !strings.Contains(err.Error(), `--trusted-proxy "proxy.local": give an address`) {
		t.Errorf("a name: %v", err)
	}
}

// The request log is on by --log-requests (or MORNINGDECK_LOG_REQUESTS, or the file), or at
// --log-level debug.
func TestLogRequestsSetting(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	t.Setenv("MORNINGDECK_LOG_REQUESTS", "true")
	root.SetArgs([]string{"config", "show"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), "log-requests = true # env") {
		t.Errorf("MORNINGDECK_LOG_REQUESTS was not read:\n%s", out.String())
	}
	for _, c := range []struct {
		cfg  Config
		want bool
	}{
		{Config{LogLevel: "info"}, false},
		{Config{LogLevel: "info", LogRequests: true}, true},
		{Config{LogLevel: "DEBUG"}, true},
		{Config{LogLevel: "warn", LogRequests: true}, true},
	} {
		if got := c.cfg.LogsRequests(); got != c.want {
			t.Errorf("%+v: LogsRequests %v", c.cfg, got)
		}
	}
}
