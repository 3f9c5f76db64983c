package e2e_test

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/feeds/mailtest"
)

// TestCLIAddMail: `source add-mail` reads the password from standard input, checks the folder
// (a wrong password is refused in plain words, nothing saved), and `fetch` makes its newsletters
// items; the password is printed nowhere.
func TestCLIAddMail(t *testing.T) {
	const password = "cli-App-Password-902"
	s := mailtest.Start(t, "reader@example.org", password, "Newsletters")
	for n := 1; n <= 3; n++ {
		d := time.Now().Add(time.Duration(n-4) * time.Hour)
		s.Add(t, "Newsletters", mailtest.Newsletter("news@weekly.example", "The Weekly", n, d, "Rates and chips."), d)
	}
	dir := t.TempDir()
	addMail := func(pw string) (string, error) {
		cmd := exec.Command(binary, "--data-dir", dir, "source", "add-mail", "--host", "127.0.0.1", "--port", strconv.Itoa(s.Port),
			"--security", "plain", "--user", s.User, "--folder", "Newsletters", "--first", "2")
		cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+t.TempDir())
		cmd.Stdin = strings.NewReader(pw + "\n")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := addMail("wrong")
	if err == nil || !strings.Contains(out, "refused the login of reader@example.org") {
		t.Fatalf("a wrong password: %v %s", err, out)
	}
	if len(listSources(t, dir)) != 0 {
		t.Fatal("a folder that could not be read was saved")
	}
	out, err = addMail(password)
	if err != nil || !strings.Contains(out, "Added mail folder") {
		t.Fatalf("%v %s", err, out)
	}
	fetched := mustRun(t, dir, "fetch")
	srcs := listSources(t, dir)
	if len(srcs) != 1 || srcs[0].Type != "imap" || srcs[0].ItemCount != 2 || srcs[0].LastError != "" {
		t.Fatalf("sources after fetch: %+v", srcs)
	}
	list := mustRun(t, dir, "source", "list")
	for _, o := range []string{out, fetched, list, mustRun(t, dir, "export", "opml")} {
		if strings.Contains(o, password) {
			t.Errorf("the password is printed: %s", o)
		}
	}
}
