package e2e_test

// The crash drill's parts: the feed farm, the mailbox, the app under test, and what the drill reads back.

import (
	"bytes"
	"cmp"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	netmail "net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	_ "modernc.org/sqlite"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

func newDrillFarm(t *testing.T, feeds, items int) *drillFarm {
	t.Helper()
	f := &drillFarm{farm: feedtest.NewFarm(feeds, items)}
	t.Cleanup(f.farm.Close)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/site/") {
			f.pageHits.Add(1)
			time.Sleep(25 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html><head><title>%s</title></head><body><article><h1>%s</h1>`, r.URL.Path, r.URL.Path)
			for i := range 4 {
				fmt.Fprintf(w, `<p>Paragraph %d of the article at %s. The morning news covers databases, queues and the crash drill that kills the process at random moments, then checks that no work was lost and nothing was done twice.</p>`, i+1, r.URL.Path)
			}
			fmt.Fprint(w, `</article></body></html>`)
			return
		}
		f.feedHits.Add(1)
		time.Sleep(10 * time.Millisecond)
		rec := httptest.NewRecorder()
		f.farm.Config.Handler.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := bytes.ReplaceAll(rec.Body.Bytes(), []byte(f.farm.Server.URL), []byte(f.Server.URL))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	t.Cleanup(f.Server.Close)
	return f
}

func (f *drillFarm) feedURL(n int) string { return f.Server.URL + "/feed/" + strconv.Itoa(n) + ".xml" }

// feedOf returns the feed number of a source URL, or -1.
func (f *drillFarm) feedOf(u string) int {
	s, ok := strings.CutPrefix(u, f.Server.URL+"/feed/")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSuffix(s, ".xml"))
	if err != nil {
		return -1
	}
	return n
}

// drillMailbox is a real SMTP server that records every message it accepts by Message-ID.
type drillMailbox struct {
	addr       string
	dataStarts atomic.Int64
	mu         sync.Mutex
	got        map[string][]drillMail
}

type drillMail struct {
	rcpt string
	at   time.Time
}

func newDrillMailbox(t *testing.T) *drillMailbox {
	t.Helper()
	m := &drillMailbox{got: map[string][]drillMail{}}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &drillSession{m: m}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 30*time.Second, 30*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return m
}

type drillSession struct {
	m     *drillMailbox
	rcpts []string
}

func (s *drillSession) Reset()                               { s.rcpts = nil }
func (s *drillSession) Logout() error                        { return nil }
func (s *drillSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *drillSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.rcpts = append(s.rcpts, to)
	return nil
}

// Data accepts a message once all of it has arrived: from then on it counts as delivered,
// whether or not the client lives to read the server's OK.
func (s *drillSession) Data(r io.Reader) error {
	s.m.dataStarts.Add(1)
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(b))
	if err != nil {
		return &smtp.SMTPError{Code: 554, Message: "unparsable message"}
	}
	id := strings.Trim(msg.Header.Get("Message-Id"), "<> ")
	s.m.mu.Lock()
	s.m.got[id] = append(s.m.got[id], drillMail{rcpt: strings.Join(s.rcpts, ","), at: time.Now()})
	s.m.mu.Unlock()
	return nil
}

func (m *drillMailbox) received() map[string][]drillMail {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string][]drillMail, len(m.got))
	for k, v := range m.got {
		out[k] = append([]drillMail(nil), v...)
	}
	return out
}

// drillApp is one `morningdeck serve` process.
type drillApp struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

var drillURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)

// drillStart starts `morningdeck serve` on the data dir; its log goes to logw.
func drillStart(t *testing.T, dataDir, logDir string, logw *os.File, args ...string) *drillApp {
	t.Helper()
	out, err := os.CreateTemp(logDir, "stdout-*")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(binary, append([]string{"--data-dir", dataDir, "serve", "--no-browser", "--addr", "127.0.0.1:0"}, args...)...)
	level := cmp.Or(os.Getenv("MORNINGDECK_DRILL_LOG_LEVEL"), "info")
	cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL="+level, "XDG_CONFIG_HOME="+logDir)
	cmd.Stdout, cmd.Stderr = out, logw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &drillApp{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(a.done) }()
	t.Cleanup(a.kill)
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(out.Name())
		if u := drillURL.Find(b); u != nil {
			a.base = string(u)
			return a
		}
		select {
		case <-a.done:
			t.Fatalf("morningdeck serve exited at start: %v\n%s", cmd.ProcessState, drillTail(logw.Name(), 30))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("morningdeck serve did not start within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (a *drillApp) kill() {
	_ = a.cmd.Process.Signal(syscall.SIGKILL)
	<-a.done
}

// stop sends SIGTERM and waits for a clean exit.
func (a *drillApp) stop() error {
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-a.done:
	case <-time.After(60 * time.Second):
		a.kill()
		return fmt.Errorf("no exit within 60 s of SIGTERM")
	}
	if !a.cmd.ProcessState.Success() {
		return fmt.Errorf("exit: %v", a.cmd.ProcessState)
	}
	return nil
}

var drillClient = &http.Client{Timeout: 20 * time.Second}

// api sends a JSON request and returns the status code.
func (a *drillApp) api(t *testing.T, method, path string, body any) int {
	t.Helper()
	code, _ := a.apiBody(t, method, path, body)
	return code
}

func (a *drillApp) apiBody(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := drillClient.Do(req)
	if err != nil {
		t.Fatalf("%s /%s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func (a *drillApp) mustAPI(t *testing.T, method, path string, body any, want int) []byte {
	t.Helper()
	code, b := a.apiBody(t, method, path, body)
	if code != want {
		t.Fatalf("%s /%s: %d %s, want %d", method, path, code, b, want)
	}
	return b
}

func (a *drillApp) createBriefing(t *testing.T, name, at string, to []string) int64 {
	t.Helper()
	b := a.mustAPI(t, "POST", "api/briefings", map[string]any{"name": name, "time": at, "timezone": "UTC", "itemLimit": 10,
		"emailEnabled": len(to) > 0, "recipients": to, "emailWhenEmpty": len(to) > 0}, 201)
	var out struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.ID == 0 {
		t.Fatalf("create briefing: %v %s", err, b)
	}
	return out.ID
}

// addSources follows every feed of the farm through the API, four requests at a time.
func (a *drillApp) addSources(t *testing.T, farm *drillFarm, feeds int) {
	t.Helper()
	var wg sync.WaitGroup
	next := atomic.Int64{}
	errs := make(chan string, feeds)
	for range 4 {
		wg.Go(func() {
			for n := int(next.Add(1) - 1); n < feeds; n = int(next.Add(1) - 1) {
				code, b := a.apiBody(t, "POST", "api/sources", map[string]any{"url": farm.feedURL(n), "type": "rss", "refreshIntervalMinutes": 1})
				if code != 201 {
					errs <- fmt.Sprintf("add feed %d: %d %s", n, code, b)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// drillFetchedFeeds returns the feeds whose source has been fetched at least once.
func drillFetchedFeeds(t *testing.T, db *sql.DB) []int {
	t.Helper()
	rows, err := db.Query(`select url from sources where last_fetched_at is not null`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		i := strings.LastIndex(u, "/feed/")
		n, err := strconv.Atoi(strings.TrimSuffix(u[i+len("/feed/"):], ".xml"))
		if i < 0 || err != nil {
			t.Fatalf("source %q is no farm feed", u)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Ints(out)
	return out
}

// drillWaitSettled waits until nothing is in flight: no source, item, briefing or delivery in
// a transitional state, no job in any queue, and every scheduled briefing (id → scheduled
// instant) run for its period.
func drillWaitSettled(t *testing.T, db *sql.DB, scheduled map[int64]time.Time, timeout time.Duration) {
	t.Helper()
	deadline, logged := time.Now().Add(timeout), time.Now()
	for {
		var sources, items, briefings, deliveries, jobs int
		err := db.QueryRow(`select
			(select count(*) from sources where fetch_status != 'IDLE'),
			(select count(*) from items where status in ('NEW', 'PENDING', 'PROCESSING')),
			(select count(*) from briefings where status in ('QUEUED', 'PROCESSING')),
			(select count(*) from deliveries where status in ('PENDING', 'SENDING')),
			(select count(*) from goqite)`).Scan(&sources, &items, &briefings, &deliveries, &jobs)
		if err != nil {
			t.Fatal(err)
		}
		due := 0
		for id, at := range scheduled {
			var n int
			if err := db.QueryRow(`select count(*) from reports where briefing_id = ? and period_end >= ?`, id, drillTime(at)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				due++
			}
		}
		state := fmt.Sprintf("%d sources not IDLE, %d items waiting, %d briefings queued or running, %d deliveries waiting, %d jobs, %d scheduled runs to come",
			sources, items, briefings, deliveries, jobs, due)
		if sources+items+briefings+deliveries+jobs+due == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not drained after %v: %s", timeout, state)
		}
		if time.Since(logged) >= 5*time.Second {
			t.Logf("draining: %s", state)
			logged = time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// drillTime formats a time as the database stores it.
func drillTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

type drillKill struct {
	cycle int
	phase string
	at    time.Time
}

// drillNearestKill describes the kill that followed t most closely.
func drillNearestKill(kills []drillKill, t time.Time) string {
	for _, k := range kills {
		if !k.at.Before(t) {
			return fmt.Sprintf("%v before kill %d, %s phase", k.at.Sub(t).Round(time.Millisecond), k.cycle, k.phase)
		}
	}
	return "after the last kill"
}

// drillPragma runs a checking pragma on the database file and returns its rows joined
// (integrity_check and quick_check say "ok"; foreign_key_check says nothing).
func drillPragma(t *testing.T, dir, pragma string, readOnly bool) string {
	t.Helper()
	dsn := "file:" + filepath.Join(dir, "morningdeck.db") + "?_pragma=busy_timeout(5000)"
	if readOnly {
		dsn += "&mode=ro"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("pragma " + pragma)
	if err != nil {
		t.Fatalf("pragma %s: %v", pragma, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("pragma %s: %v", pragma, err)
	}
	return strings.Join(out, "; ")
}

func drillWaitFor(cond func() bool, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}

func drillEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, s)
	}
	return n
}

func drillFileSize(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func drillTail(path string, lines int) string {
	b, _ := os.ReadFile(path)
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

func drillList(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return ": " + strings.Join(s, "; ")
}

// drillPercentiles describes a sample: p50, p95, p99 and max.
func drillPercentiles(d []time.Duration) string {
	if len(d) == 0 {
		return "no sample"
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	r := func(d time.Duration) time.Duration {
		if d < 10*time.Millisecond {
			return d.Round(100 * time.Microsecond)
		}
		return d.Round(time.Millisecond)
	}
	return fmt.Sprintf("p50 %v, p95 %v, p99 %v, max %v", r(at(0.50)), r(at(0.95)), r(at(0.99)), r(s[len(s)-1]))
}

var drillLogLine = regexp.MustCompile(`level=(WARN|ERROR) msg=("(?:[^"\\]|\\.)*"|\S+)`)

// drillLogSummary counts the app log's WARN and ERROR lines by message.
func drillLogSummary(path string) string {
	b, _ := os.ReadFile(path)
	counts := map[string]int{}
	for _, m := range drillLogLine.FindAllStringSubmatch(string(b), -1) {
		counts[m[1]+" "+strings.Trim(m[2], `"`)]++
	}
	if len(counts) == 0 {
		return "none"
	}
	var out []string
	for k, n := range counts {
		out = append(out, fmt.Sprintf("%d× %s", n, k))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
