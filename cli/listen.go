package cli

// Where serve listens, and the browser it opens on a person's machine.

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
)

// listen binds addr; when the address was not chosen by the user and is taken, it tries the next ports.
func listen(addr string, fallback bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil || !fallback {
		if err != nil {
			return nil, fmt.Errorf("listen on %s: %w (choose another with --addr)", addr, err)
		}
		return ln, nil
	}
	host, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	for p := port + 1; p <= port+20; p++ {
		if ln, err2 := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p))); err2 == nil {
			return ln, nil
		}
	}
	return nil, fmt.Errorf("listen on %s: %w (choose another with --addr)", addr, err)
}

// listenURL is the app's address as the listener bound it, for links in emails when no
// --base-url is set: the real port (of ":0", or the next free one), and the machine's name
// for an address that listens on every interface (0.0.0.0 is no address to visit).
func listenURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
		if name, err := os.Hostname(); err == nil && name != "" {
			host = name
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}

// launchBrowser opens url in the user's browser when there is a display to show it on.
func launchBrowser(log *slog.Logger, url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return // a headless machine: the URL is printed
		}
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		log.Info("could not open a browser; open the URL yourself", "url", url, "error", err)
		return
	}
	go func() { _ = cmd.Wait() }()
}
