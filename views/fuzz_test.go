package views

// Fuzz target of the API's JSON decoding. Run it with
//
//	go test ./views -run '^$' -fuzz '^FuzzAPIDecode$' -fuzztime 60s
//
// Inputs that fail are written to testdata/fuzz/FuzzAPIDecode/ and run by every `go test`.

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
)

// fuzzRequests make the request structs the API handlers decode into.
var fuzzRequests = []func() any{
	func() any { return new(createSourceRequest) },
	func() any { return new(updateSourceRequest) },
	func() any { return new(briefingRequest) },
	func() any { return new(patchSettingsRequest) },
	func() any { return new(patchItemRequest) },
	func() any { return &app.Filter{Enabled: true} },
}

// fuzzDecode runs decode on body as the handlers do.
func fuzzDecode(body []byte, v any) error {
	r := httptest.NewRequest("POST", "/api/fuzz", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return decode(httptest.NewRecorder(), r, v)
}

// fuzzMessageProblem says why an error message is not fit for a person; "" if it is. input is
// what the person sent: a message may quote it, so what it holds does not count as a leak.
func fuzzMessageProblem(msg string, input []byte) string {
	switch {
	case msg == "":
		return "empty"
	case !utf8.ValidString(msg):
		return "invalid UTF-8"
	case len(msg) > 300:
		return "longer than 300 bytes"
	}
	for _, leak := range []string{"json:", "Go value", "Go struct", "struct field", "unmarshal", "Unmarshal", "reflect", "views.", "app.", "main.",
		"time.", "parsing time", "%!", "<nil>", "of another type", "must be a number, not number", "must be a string, not string", "must be true or false, not bool"} {
		if strings.Contains(msg, leak) && !bytes.Contains(input, []byte(leak)) {
			return "it shows Go internals or says nothing useful (" + leak + ")"
		}
	}
	return ""
}

// FuzzAPIDecode decodes arbitrary bodies into the API's request structs: no panic; an error is
// EINVALID with a message for a person (no Go type names, no json: prefix, short, valid UTF-8);
// an accepted body is one JSON value, and the decoded request, encoded and decoded again, is the
// same.
func FuzzAPIDecode(f *testing.F) {
	for i, s := range []string{
		`{"url":"https://go.dev/blog/feed.atom","name":"Go","type":"rss","refreshIntervalMinutes":30}`,
		`{"name":"x","refreshIntervalMinutes":1.5,"status":"paused","autoInterval":"yes"}`,
		`{"name":"Morning","focus":"Go","frequency":"DAILY","dayOfWeek":1,"time":"07:00","timezone":"Europe/Brussels","itemLimit":10,"minScore":3,"sourceIds":[1,2],"topic":"","emailEnabled":true,"recipients":["a@b.test"],"emailWhenEmpty":false}`,
		`{"interests":"go","topics":[{"name":"Go","keywords":["golang"]}],"dailyCredits":"5","smtpPort":1e400,"timezone":null}`,
		`{"read":true,"starred":false,"hidden":null}`,
		`{"name":"f","field":"title","match":"regex","pattern":"(a","action":"hide","scoreDelta":-2,"enabled":true,"createdAt":"yesterday","sourceId":"3"}`,
		`{"url":"a"} {"url":"b"}`,
		`{"url":"a"}]`,
		`{"url":`,
		``,
		`   `,
		`null`,
		`[]`,
		`"just a string"`,
		`{"unknown":1}`,
		`{"url":"\ud800\udc00\xff"}`,
		`{"sourceIds":[1,"2"]}`,
		`{"topics":[{"name":1}]}`,
		`{"createdAt":5}`,
		`{"sourceIds":{"a":1}}`,
		`{"dayOfWeek":99999999999999999999}`,
		`{"` + strings.Repeat("k", 400) + `":1}`,
		strings.Repeat("[", 20000),
	} {
		f.Add([]byte(s), uint8(i))
	}
	for _, s := range []string{`{"createdAt":5}`, `{"createdAt":"2026-03-14T07:00:00+01:00","sourceId":null}`, `{"createdAt":"2026-13-45T99:00:00Z"}`, `{"sourceId":1.5}`} {
		f.Add([]byte(s), uint8(5)) // app.Filter
	}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		v := fuzzRequests[int(which)%len(fuzzRequests)]()
		err := fuzzDecode(body, v)
		if err != nil {
			if app.ErrorCode(err) != app.EINVALID {
				t.Fatalf("decode(%q) into %T: %v is not EINVALID", body, v, err)
			}
			if p := fuzzMessageProblem(app.ErrorMessage(err), body); p != "" {
				t.Fatalf("decode(%q) into %T: message %q: %s", body, v, app.ErrorMessage(err), p)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("decode accepted %q into %T, which is not one JSON value", body, v)
		}
		if trimmed := bytes.TrimSpace(body); !bytes.HasPrefix(trimmed, []byte("{")) && !bytes.Equal(trimmed, []byte("null")) {
			t.Fatalf("decode accepted %q into %T, which is not an object", body, v)
		}
		once, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("encoding %#v: %v", v, err)
		}
		w := fuzzRequests[int(which)%len(fuzzRequests)]()
		if err := fuzzDecode(once, w); err != nil {
			t.Fatalf("decode of the re-encoded %s: %v", once, err)
		}
		twice, err := json.Marshal(w)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("%q decoded, encoded and decoded again changed:\n%s\n%s (%v)", body, once, twice, err)
		}
	})
}
