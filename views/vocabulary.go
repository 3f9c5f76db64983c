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

// addVocabulary adds a learned word to one of the user's interests ("(also: …)").
func (s *Server) addVocabulary(w http.ResponseWriter, r *http.Request) {
	word := r.PostFormValue("word")
	s.editInterest(w, r, func(interests, interest string) (string, bool) {
		return app.AddToInterest(interests, interest, word)
	}, "Added “"+word+"”: your items are being scored with it.")
}

// removeKind takes one of the lexicon's kinds out of one of the user's interests ("(not: …)").
func (s *Server) removeKind(w http.ResponseWriter, r *http.Request) {
	kind := r.PostFormValue("kind")
	s.editInterest(w, r, func(interests, interest string) (string, bool) {
		return app.RemoveKind(interests, interest, kind)
	}, "“"+kind+"” no longer counts for the interest: your items are being scored again.")
}

// editInterest changes the interest the form names with edit and says done, or why not.
func (s *Server) editInterest(w http.ResponseWriter, r *http.Request, edit func(interests, interest string) (string, bool), done string) {
	if s.opts.Vocabulary == nil || s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	st, err := s.opts.Settings.Get(r.Context(), userID(r))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	interests, ok := edit(st.Interests, r.PostFormValue("interest"))
	if !ok {
		s.redirect(w, r, "/settings/vocabulary", flashError("That interest is no longer in your settings, or the word cannot be changed there; edit your interests in Settings."))
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
	s.redirect(w, r, "/settings/vocabulary", flashSuccess(done))
}
