// Command screenshots regenerates the README's screenshots: it builds morningdeck, runs it on a
// fresh data directory with a few feeds of testdata/corpus, and photographs the main pages
// with headless Chromium, light and dark, desktop and phone.
//
//	go run ./scripts/screenshots
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

func main() {
	log.SetFlags(0)
	tmp, err := os.MkdirTemp("", "md-shots")
	check(err)
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "morningdeck")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	check(build.Run())

	corpus := httptest.NewServer(http.FileServer(http.Dir("testdata/corpus/feeds")))
	defer corpus.Close()
	base, stop := serve(bin, filepath.Join(tmp, "data"))
	defer stop()

	ctx, cancel := browser()
	defer cancel()
	out := "docs/screenshots"
	check(os.MkdirAll(out, 0o755))
	shoot(ctx, base, "", out+"/onboarding-light.png", false, 1280, 900)

	api(base, "PATCH", "/api/settings", `{"interests": "ruby rails git testing", "topics": [{"name": "Ruby", "keywords": ["ruby", "rails", "gem"]}, {"name": "Cloud", "keywords": ["aws", "amazon", "s3"]}]}`)
	for _, f := range []string{"TenderLovemaking.xml", "GiantRobotsSmashingIntoOtherGiantRobots.xml", "TrotterCashionHome.xml", "AmazonWebServicesBlog.xml", "SamRuby.xml"} {
		api(base, "POST", "/api/sources", fmt.Sprintf(`{"url": %q, "type": "rss"}`, corpus.URL+"/"+f))
	}
	time.Sleep(3 * time.Second)
	// The first import is not enriched; enrich the newest items for the pictures.
	var items []struct {
		ID int64 `json:"id"`
	}
	check(json.Unmarshal(api(base, "GET", "/api/items?limit=40", ""), &items))
	for _, it := range items {
		api(base, "POST", fmt.Sprintf("/api/items/%d/retry", it.ID), "")
	}
	time.Sleep(4 * time.Second)

	shoot(ctx, base, "sources", out+"/sources-light.png", false, 1280, 900)
	shoot(ctx, base, "sources", out+"/sources-dark.png", true, 1280, 900)
	shoot(ctx, base, "items?show=all&sort=score", out+"/items-light.png", false, 1280, 1100)
	shoot(ctx, base, "items?show=all&sort=score", out+"/items-dark.png", true, 1280, 1100)
	shoot(ctx, base, fmt.Sprintf("items/%d", items[0].ID), out+"/item-light.png", false, 1280, 1100)
	shoot(ctx, base, "settings", out+"/settings-light.png", false, 1280, 1200)
	shoot(ctx, base, "queues", out+"/queues-light.png", false, 1280, 1100)
	shoot(ctx, base, "queues", out+"/queues-dark.png", true, 1280, 1100)
	shoot(ctx, base, "items?show=all&sort=score", out+"/items-phone.png", false, 390, 844)
	shoot(ctx, base, "sources", out+"/sources-phone.png", true, 390, 844)
	log.Println("screenshots written to", out)
}

func serve(bin, dir string) (string, func()) {
	cmd := exec.Command(bin, "--data-dir", dir, "serve", "--no-browser", "--addr", "127.0.0.1:0", "--log-level", "warn")
	stdout, err := cmd.StdoutPipe()
	check(err)
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	sc := bufio.NewScanner(stdout)
	re := regexp.MustCompile(`http://[0-9.:]+/`)
	for sc.Scan() {
		if u := re.FindString(sc.Text()); u != "" {
			go func() {
				for sc.Scan() {
				}
			}()
			return u, func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
		}
	}
	log.Fatal("the server did not start")
	return "", nil
}

func api(base, method, path, body string) []byte {
	req, err := http.NewRequest(method, base+path[1:], bytes.NewBufferString(body))
	check(err)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	check(err)
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	if res.StatusCode >= 400 {
		log.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b.String())
	}
	return b.Bytes()
}

func browser() (context.Context, context.CancelFunc) {
	path := "chromium"
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Headless,
		chromedp.DisableGPU, chromedp.Flag("disable-background-networking", true), chromedp.Flag("no-first-run", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc, chromedp.WithErrorf(func(string, ...any) {}))
	return ctx, func() { cancelCtx(); cancelAlloc() }
}

func shoot(ctx context.Context, base, path, file string, dark bool, w, h int64) {
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	var png []byte
	check(chromedp.Run(ctx,
		emulation.SetDeviceMetricsOverride(w, h, 1, w < 600),
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}),
		chromedp.Navigate(base+path),
		chromedp.WaitReady("body", chromedp.ByQuery),
		chromedp.Sleep(400*time.Millisecond),
		chromedp.CaptureScreenshot(&png),
	))
	check(os.WriteFile(file, png, 0o644))
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
