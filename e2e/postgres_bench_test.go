package e2e_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
)

// benchFeeds is BenchmarkFirstIngestion's farm size.
var benchFeeds = flag.Int("feeds", 300, "BenchmarkFirstIngestion: feeds in the farm (20 items each)")

// BenchmarkFirstIngestion times `morningdeck fetch` of a first ingestion (every source
// fetched once, its items stored and scored) on SQLite and on PostgreSQL (the test binary's
// throwaway server: fsync off, so the comparison flatters neither engine's disk), with the
// binary's CPU time. Not part of `make test`:
//
//	go test ./e2e -run '^$' -bench FirstIngestion -benchtime 1x [-feeds 300]
func BenchmarkFirstIngestion(b *testing.B) {
	feeds, items := *benchFeeds, 20
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	opml := filepath.Join(b.TempDir(), "sources.opml")
	var o strings.Builder
	o.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<opml version=\"2.0\"><head><title>bench</title></head><body>\n")
	for i := range feeds {
		fmt.Fprintf(&o, "<outline type=\"rss\" text=\"Feed %d\" xmlUrl=\"%s\"/>\n", i, farm.URL(i))
	}
	o.WriteString("</body></opml>\n")
	if err := os.WriteFile(opml, []byte(o.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				dir := b.TempDir()
				env := append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+b.TempDir())
				var url string
				if engine == "postgres" {
					url = pgtest.URL(b)
					env = append(env, "MORNINGDECK_DATABASE_URL="+url)
				}
				serverCPU := func() time.Duration {
					if url == "" {
						return 0
					}
					return pgServerCPU(b, url)
				}
				cli := func(args ...string) *os.ProcessState {
					cmd := exec.Command(binary, append([]string{"--data-dir", dir}, args...)...)
					cmd.Env = env
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%v: %v\n%s", args, err, out)
					}
					return cmd.ProcessState
				}
				cli("import", "opml", opml)
				pgBefore := serverCPU()
				b.StartTimer()
				t0 := time.Now()
				st := cli("fetch")
				wall := time.Since(t0)
				b.StopTimer()
				cpu := st.UserTime() + st.SystemTime()
				pgCPU := serverCPU() - pgBefore
				b.ReportMetric(wall.Seconds(), "s/ingestion")
				b.ReportMetric(cpu.Seconds(), "cpu-s/ingestion")
				b.ReportMetric(pgCPU.Seconds(), "pg-cpu-s/ingestion")
				b.Logf("%s: %d feeds × %d items: %v, %v CPU in the binary, %v in PostgreSQL", engine, feeds, items, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), pgCPU.Round(time.Millisecond))
			}
		})
	}
}
