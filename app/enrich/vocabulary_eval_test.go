package enrich_test

import (
	"sort"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// TestVocabularyEval learns each labelled interest's vocabulary from the evaluation corpus and
// ranks again with every learned word added to the interest (what a reader who accepts all of
// Settings' suggestions gets): the words must not cost the held-out interests. The floor holds
// on the interests it was set on (added before session 19); all of them are reported.
func TestVocabularyEval(t *testing.T) {
	items := evalCorpus(t)
	labels := loadLabels(t)
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	var ins []app.EnrichInput
	for _, it := range items {
		e.Stats().Observe(it.title + " " + it.text)
		ins = append(ins, it.input("", now))
	}
	var b, a [2]float64
	var n [2]float64
	var ob, oa, on float64 // the held-out interests added before session 19
	names := make([]string, 0, len(labels.Interests))
	for name := range labels.Interests {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		l := labels.Interests[name]
		sp := 0
		if l.HeldOut {
			sp = 1
		}
		before := ndcgAt(rank(t, e, items, name, l.Relevant, now, nil), 10)
		v := e.Vocabulary(name, ins, 6)
		with := name
		if len(v) > 0 {
			for _, w := range v[0].Words {
				with, _ = app.AddToInterest(with, with, w) // as the Settings page adds it
			}
		}
		after := ndcgAt(rank(t, e, items, with, l.Relevant, now, nil), 10)
		t.Logf("%-50s %.2f -> %.2f  %s", name, before, after, with)
		b[sp] += before
		a[sp] += after
		n[sp]++
		if l.HeldOut && l.Added <= 18 {
			ob += before
			oa += after
			on++
		}
	}
	t.Logf("NDCG@10 with every learned word added: development %.4f -> %.4f; held out %.4f -> %.4f", b[0]/n[0], a[0]/n[0], b[1]/n[1], a[1]/n[1])
	t.Logf("the held-out interests added before session 19: %.3f -> %.3f (%d)", ob/on, oa/on, int(on))
	if oa < ob-0.02*on {
		t.Errorf("the learned words cost the held-out interests: NDCG@10 %.3f -> %.3f", ob/on, oa/on)
	}
}
