package queue_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// TestMain doubles as a feed farm server when MORNINGDECK_FARM=feeds,items is set, so
// benchmarks can measure the pipeline's memory without the farm's.
func TestMain(m *testing.M) {
	if spec := os.Getenv("MORNINGDECK_FARM"); spec != "" {
		var feeds, items int
		if _, err := fmt.Sscanf(spec, "%d,%d", &feeds, &items); err != nil {
			panic(err)
		}
		farm := feedtest.NewFarm(feeds, items)
		fmt.Println(farm.URL(0))
		select {}
	}
	os.Exit(m.Run())
}

// farmProcess starts a farm in a child process and returns the URL of feed n.
func farmProcess(tb testing.TB, feeds, items int) func(n int) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "MORNINGDECK_FARM="+strconv.Itoa(feeds)+","+strconv.Itoa(items))
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		tb.Fatal("farm did not start")
	}
	first := sc.Text() // .../feed/0.xml
	base := first[:len(first)-len("0.xml")]
	return func(n int) string { return base + strconv.Itoa(n) + ".xml" }
}
