package views_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestZZBrowserTmp(t *testing.T) {
	e := newEnv(t)
	seedItems(t, e)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("/usr/bin/chromium"), chromedp.NoSandbox, chromedp.Headless, chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()))
	ac, c1 := chromedp.NewExecAllocator(context.Background(), opts...)
	defer c1()
	ctx, c2 := chromedp.NewContext(ac, chromedp.WithErrorf(func(string, ...any) {}))
	defer c2()
	ctx, c3 := context.WithTimeout(ctx, 60*time.Second)
	defer c3()
	var res string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(e.srv.URL+"/items?show=all"),
		chromedp.WaitVisible(`[data-testid=item]`, chromedp.ByQuery),
		chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), chromedp.KeyEvent("s"),
		chromedp.Sleep(800*time.Millisecond),
		chromedp.Evaluate(`(function(){var a=document.activeElement; var cards=document.querySelectorAll('[data-testid=item]'); return [a.tagName, a.dataset.testid, cards[1].contains(a), cards[1].classList.contains('is-current'), cards[1].querySelector('[data-testid=toggle-star]').getAttribute('aria-pressed'), window.scrollY].join(' ')})()`, &res),
	); err != nil {
		t.Fatal(err)
	}
	t.Log("after j j s:", res)
	if err := chromedp.Run(ctx,
		chromedp.KeyEvent("m"),
		chromedp.Sleep(800*time.Millisecond),
		chromedp.Evaluate(`(function(){var a=document.activeElement; var cards=document.querySelectorAll('[data-testid=item]'); return [a.dataset.testid, cards[1].className, document.querySelectorAll('[data-testid=item]').length].join(' ')})()`, &res),
	); err != nil {
		t.Fatal(err)
	}
	t.Log("after m:", res)
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.activeElement.blur()`, nil),
		chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"),
		chromedp.Evaluate(`(function(){var s=document.querySelector('.score[tabindex]'); s.focus(); var r=s.nextElementSibling; var cs=getComputedStyle(r); return [s.matches(':focus-visible'), cs.clipPath, r.getBoundingClientRect().width, r.textContent].join(' | ')})()`, &res),
	); err != nil {
		t.Fatal(err)
	}
	t.Log("score focus:", res)
	var buf []byte
	chromedp.Run(ctx, chromedp.FullScreenshot(&buf, 100))
	_ = writeFile("/tmp/items.png", buf)
	chromedp.Run(ctx, chromedp.Navigate(e.srv.URL+"/settings"), chromedp.WaitVisible(`#interests`, chromedp.ByQuery), chromedp.FullScreenshot(&buf, 100))
	_ = writeFile("/tmp/settings.png", buf)
}

func writeFile(p string, b []byte) error { return os.WriteFile(p, b, 0o644) }
