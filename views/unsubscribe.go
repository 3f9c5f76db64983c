package views

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/morningdeck/morningdeck/app"
)

// unsubscribe is the signed link of a report email (no sign-in: the signature is the
// credential). GET asks to confirm; POST unsubscribes — from the confirm page, or straight from
// a mail client's one-click request (RFC 8058: POST with List-Unsubscribe=One-Click).
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) {
	if s.opts.Unsubscribes == nil {
		s.notFound(w, r)
		return
	}
	q := r.URL.Query()
	id, _ := strconv.ParseInt(q.Get("b"), 10, 64)
	to, sig := q.Get("to"), q.Get("sig")
	v := UnsubscribeView{To: to, Query: url.Values{"b": {q.Get("b")}, "to": {to}, "sig": {sig}}.Encode()}
	var b *app.Briefing
	var err error
	if r.Method == http.MethodPost {
		b, err = s.opts.Unsubscribes.Unsubscribe(r.Context(), id, to, sig)
		v.Done = err == nil
	} else {
		b, err = s.opts.Unsubscribes.Check(r.Context(), id, to, sig)
	}
	status := http.StatusOK
	if err != nil {
		if app.ErrorCode(err) == app.EINTERNAL {
			s.serverError(w, r, err)
			return
		}
		v.Error, status = app.ErrorMessage(err), http.StatusNotFound
	} else {
		v.Briefing = b.Name
	}
	w.Header().Set("Cache-Control", "no-store")
	s.renderStatus(w, r, status, unsubscribePage(v))
}
