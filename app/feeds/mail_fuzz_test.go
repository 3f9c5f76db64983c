package feeds

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzMailItem: whatever a message holds, reading it as an item does not panic, stays within
// its bounds, and leaves only sanitized HTML (the checks of FuzzSanitize) in valid UTF-8.
//
//	go test ./app/feeds -run '^$' -fuzz '^FuzzMailItem$' -fuzztime 60s
func FuzzMailItem(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "mail", "*.eml"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("Content-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\n"))
	f.Add([]byte("Subject: =?utf-8?B?////?=\r\nFrom: \"\" <>\r\nContent-Type: text/html; charset=utf-7\r\nContent-Transfer-Encoding: base64\r\n\r\nPHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\r\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		it, err := MailItem(bytes.NewReader(msg), time.Time{})
		if err != nil {
			return
		}
		if p := fuzzHTMLProblem(it.CleanContent, false); p != "" {
			t.Fatalf("MailItem(%q).CleanContent = %q: %s", msg, it.CleanContent, p)
		}
		if strings.Contains(strings.ToLower(it.CleanContent), "<form") || strings.Contains(strings.ToLower(it.CleanContent), "<script") {
			t.Fatalf("MailItem(%q) kept a form or a script: %q", msg, it.CleanContent)
		}
		if !utf8.ValidString(it.CleanContent) || !utf8.ValidString(it.Text) {
			t.Fatalf("MailItem(%q): invalid UTF-8", msg)
		}
		if len(it.CleanContent) > MaxContentBytes || len(it.GUID) > maxGUIDBytes*2 || it.GUID == "" {
			t.Fatalf("MailItem(%q): content %d bytes, guid %q", msg, len(it.CleanContent), it.GUID)
		}
		if u, _ := it.Extra["unsubscribe"].(string); u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "mailto:") {
			t.Fatalf("MailItem(%q): unsubscribe link %q", msg, u)
		}
	})
}
