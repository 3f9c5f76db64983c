package views

import (
	"net/http"

	"github.com/morningdeck/morningdeck/app"
)

// vocabularyPage shows the words that go with the user's interests in their own items.
func (s *Server) vocabularyPage(w http.ResponseWriter, r *http.Request) {
	if s.opts.Vocabulary == nil || s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	words, err := s.opts.Vocabulary(r.Context(), userID(r))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.renderStatus(w, r, http.StatusOK, vocabularyPage(s.page(w, r, "settings", "Words that go with your interests"), VocabularyView{Interests: words}))
}

// addVocabulary adds a learned word to one of the user's interests.
func (s *Server) addVocabulary(w http.ResponseWriter, r *http.Request) {
	if s.opts.Vocabulary == nil || s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	st, err := s.opts.Settings.Get(r.Context(), userID(r))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	word := r.PostFormValue("word")
	interests, ok := app.AddToInterest(st.Interests, r.PostFormValue("interest"), word)
	if !ok {
		s.redirect(w, r, "/settings/vocabulary", flashError("That interest is no longer in your settings, or the word cannot be added; edit your interests in Settings."))
		return
	}
	if _, err := s.opts.Settings.Update(r.Context(), userID(r), app.SettingsUpdate{Interests: &interests}); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		s.redirect(w, r, "/settings/vocabulary", flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, "/settings/vocabulary", flashSuccess("Added “"+word+"”: your items are being scored with it."))
}

// removeKind takes one of the lexicon's kinds out of one of the user's interests.
func (s *Server) removeKind(w http.ResponseWriter, r *http.Request) {
	if s.opts.Vocabulary == nil || s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	st, err := s.opts.Settings.Get(r.Context(), userID(r))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	kind := r.PostFormValue("kind")
	interests, ok := app.RemoveKind(st.Interests, r.PostFormValue("interest"), kind)
	if !ok {
		s.redirect(w, r, "/settings/vocabulary", flashError("That interest is no longer in your settings, or the word cannot be removed; edit your interests in Settings."))
		return
	}
	if _, err := s.opts.Settings.Update(r.Context(), userID(r), app.SettingsUpdate{Interests: &interests}); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		s.redirect(w, r, "/settings/vocabulary", flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, "/settings/vocabulary", flashSuccess("“"+kind+"” no longer counts for the interest: your items are being scored again."))
}
