package views

import (
	"net/http"

	"github.com/morningdeck/morningdeck/app"
)

// Learning from the reader (issue 12): "More like this" / "Less like this" on items (form and
// JSON API), the "read to the end" beacon of the item page, and Settings → "What Morning Deck
// learned" with its reset.

func (s *Server) feedbackOn(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Feedback == nil {
		s.notFound(w, r)
		return false
	}
	return true
}

// feedbackMessage is what the reader is told after explicit feedback.
func feedbackMessage(signal string) string {
	if signal == app.SignalLess {
		return "Noted: you will see fewer items like this one."
	}
	return "Noted: you will see more items like this one."
}

// itemFeedback records "more" or "less" (or, from the beacon, "read_to_end") on an item.
func (s *Server) itemFeedback(w http.ResponseWriter, r *http.Request) {
	if !s.feedbackOn(w, r) {
		return
	}
	it, ok := s.loadItem(w, r)
	if !ok {
		return
	}
	signal := r.PostFormValue("signal")
	err := s.opts.Feedback.Record(r.Context(), userID(r), it.ID, signal)
	here := back(r, "/items")
	if r.Header.Get("X-Beacon") == "true" {
		if err != nil {
			s.apiError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err != nil {
		s.redirect(w, r, here, flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, here, flashSuccess(feedbackMessage(signal)))
}

type feedbackRequest struct {
	Signal string `json:"signal"`
}

// apiItemFeedback is POST /api/items/{id}/feedback {"signal": "more"|"less"|…}.
func (s *Server) apiItemFeedback(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiItemID(w, r)
	if !ok {
		return
	}
	if s.opts.Feedback == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Feedback is not enabled on this server."))
		return
	}
	var req feedbackRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	if err := s.opts.Feedback.Record(r.Context(), userID(r), id, req.Signal); err != nil {
		s.apiError(w, r, err)
		return
	}
	l, err := s.opts.Feedback.Learned(r.Context(), userID(r))
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "signal": req.Signal, "signals": l.Signals})
}

// apiLearned is GET /api/taste: what the reading model learned.
func (s *Server) apiLearned(w http.ResponseWriter, r *http.Request) {
	if s.opts.Feedback == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Feedback is not enabled on this server."))
		return
	}
	l, err := s.opts.Feedback.Learned(r.Context(), userID(r))
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	if l.Positive == nil {
		l.Positive = []app.LearnedTerm{}
	}
	if l.Negative == nil {
		l.Negative = []app.LearnedTerm{}
	}
	writeJSON(w, http.StatusOK, l)
}

// apiResetTaste is DELETE /api/taste.
func (s *Server) apiResetTaste(w http.ResponseWriter, r *http.Request) {
	if s.opts.Feedback == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Feedback is not enabled on this server."))
		return
	}
	if err := s.opts.Feedback.Reset(r.Context(), userID(r)); err != nil {
		s.apiError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// resetTaste is Settings' Reset button.
func (s *Server) resetTaste(w http.ResponseWriter, r *http.Request) {
	if !s.feedbackOn(w, r) {
		return
	}
	if err := s.opts.Feedback.Reset(r.Context(), userID(r)); err != nil {
		s.redirect(w, r, "/settings#learned-title", flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, "/settings#learned-title", flashSuccess("Morning Deck forgot what it learned from your reading; your unread items are being scored again."))
}

// learned is what the Settings page shows of the reading model (nil without Feedback).
func (s *Server) learned(r *http.Request) *app.Learned {
	if s.opts.Feedback == nil {
		return nil
	}
	l, err := s.opts.Feedback.Learned(r.Context(), userID(r))
	if err != nil {
		s.log.Warn("learned terms not shown", "error", err)
		return &app.Learned{}
	}
	return l
}

// plural is one or many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
