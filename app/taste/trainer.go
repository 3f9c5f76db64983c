package taste

import (
	"encoding/json"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// Trainer is the app.TasteTrainer of the embedded enricher: features from its statistics (the
// same that score), models as Model.
type Trainer struct{ E *enrich.Embedded }

var _ app.TasteTrainer = Trainer{}

// Features are the item's features for the model (Embedded.Features).
func (t Trainer) Features(in app.EnrichInput, topics []string) (keys, labels []string) {
	return t.E.Features(in, topics)
}

// Train builds a model from the events, oldest first, and returns it as JSON.
func (t Trainer) Train(events []app.FeedbackEvent) ([]byte, error) {
	m := NewModel()
	for _, e := range events {
		m.Learn(Signal(e.Signal), e.Keys, e.Labels)
	}
	return json.Marshal(m)
}

// Parse reads a stored model.
func (t Trainer) Parse(b []byte) (app.LearnedTaste, error) {
	m, err := ParseModel(b)
	if err != nil {
		return nil, err
	}
	return learned{m}, nil
}

type learned struct{ *Model }

func (l learned) Top(n int) (pos, neg []app.LearnedTerm) {
	p, q := l.Model.Top(n)
	for _, x := range p {
		pos = append(pos, app.LearnedTerm{Label: x.Label, Weight: x.Weight})
	}
	for _, x := range q {
		neg = append(neg, app.LearnedTerm{Label: x.Label, Weight: x.Weight})
	}
	return pos, neg
}
