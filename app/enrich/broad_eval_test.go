package enrich_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/taste"
)

// broadInterests are interests a person writes for a broad topic, with the UCI category whose
// headlines are relevant. The development ones choose the parameters; the held-out ones (other
// words for the same topics) are ranked over the held-out headlines only, and never tuned on.
var broadInterests = []struct {
	interest, category string
	heldOut            bool
}{
	{"entertainment", "e", false},
	{"business and finance", "b", false},
	{"technology", "t", false},
	{"health", "m", false},
	{"films and television", "e", false},
	{"celebrities", "e", false},
	{"the stock market", "b", false},
	{"companies and earnings", "b", false},
	{"science", "t", false},
	{"smartphones and software", "t", false},
	{"medical research", "m", false},
	{"diet and fitness", "m", false},
	{"movies, music and celebrities", "e", true},
	{"the economy and markets", "b", true},
	{"gadgets, apps and the internet", "t", true},
	{"medicine and diseases", "m", true},
}

// loadBroad reads the headlines of one split of testdata/corpus/topics/uci-sample.tsv.
func loadBroad(t testing.TB, split string) (items []evalItem, category map[string]string) {
	t.Helper()
	f, err := os.Open("../../testdata/corpus/topics/uci-sample.tsv")
	if err != nil {
		t.Fatalf("the topic sample is missing (%v): it is part of the repository", err)
	}
	defer f.Close()
	category = map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 6 || c[0] != split {
			continue
		}
		link := fmt.Sprintf("http://uci.invalid/%s/%d", split, len(items))
		items = append(items, evalItem{title: c[5], link: link, feed: c[4]})
		category[link] = c[2]
	}
	if len(items) < 1000 {
		t.Fatalf("only %d headlines in the %s split", len(items), split)
	}
	return items, category
}

// broadSplit is a split's headlines and their categories, with an embedded enricher that
// observed them and the evaluation's now.
func broadSplit(t testing.TB, split string) ([]evalItem, map[string]string, *enrich.Embedded, time.Time) {
	items, category := loadBroad(t, split)
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	for _, it := range items {
		e.Stats().Observe(it.title)
	}
	return items, category, e, time.Date(2014, 8, 1, 8, 0, 0, 0, time.UTC)
}

// relevantOf labels the headlines of a category relevant (1).
func relevantOf(category map[string]string, cat string) map[string]int {
	rel := map[string]int{}
	for link, c := range category {
		if c == cat {
			rel[link] = 1
		}
	}
	return rel
}

// broadScores ranks a split for each of its interests and returns the mean P@10 and NDCG@10
// (the relevant items: the interest's category, label 1).
func broadScores(t testing.TB, split string, heldOut bool, log bool) (p, n float64) {
	items, category, e, now := broadSplit(t, split)
	k := 0
	for _, bi := range broadInterests {
		if bi.heldOut != heldOut {
			continue
		}
		rel := relevantOf(category, bi.category)
		r := rank(t, e, items, bi.interest, rel, now, nil)
		pi, ni := precisionAt(r, 10), ndcgAt(r, 10)
		p, n, k = p+pi, n+ni, k+1
		if log {
			t.Logf("%-8s %-34q P@10 %.2f NDCG@10 %.2f  first: %q (%s)", split, bi.interest, pi, ni, r[0].item.title, r[0].why)
		}
	}
	return p / float64(k), n / float64(k)
}

// TestBroadInterestEval ranks real headlines (UCI News Aggregator) for broad interests that
// rarely appear in the items' words ("entertainment" for films, "technology" for gadgets):
// development interests over the development headlines, held-out interests over held-out
// headlines of other months. Run with -v for the table; BROAD_SWEEP=1 sweeps the semantic
// parameters on the development split only. The floors hold held-out figures and only rise
// with a change of design.
func TestBroadInterestEval(t *testing.T) {
	if os.Getenv("BROAD_SWEEP") != "" {
		for _, floor := range []float64{0.15, 0.2, 0.25} {
			for _, full := range []float64{0.5, 0.55, 0.6} {
				for _, w := range []float64{0, 0.6, 0.8, 1.0} {
					restore := enrich.SetSemantic(floor, full, w)
					p, n := broadScores(t, "dev", false, false)
					restore()
					t.Logf("floor %.2f full %.2f weight %.1f: dev P@10 %.3f NDCG@10 %.3f", floor, full, w, p, n)
				}
			}
		}
	}
	dp, dn := broadScores(t, "dev", false, testing.Verbose())
	hp, hn := broadScores(t, "heldout", true, testing.Verbose())
	t.Logf("broad interests: development P@10 %.3f NDCG@10 %.3f; held-out P@10 %.3f NDCG@10 %.3f", dp, dn, hp, hn)
	// Floor of the held-out NDCG@10: 0.653 with the words alone (semWeight 0), 0.825 with the
	// word vectors (single-word subjects, weight 0.3, chosen on the development split), 0.942
	// with the news-topic model (session 12; development 0.908).
	const floorHeldOutNDCG = 0.90
	if hn < floorHeldOutNDCG {
		t.Errorf("held-out NDCG@10 %.3f under its floor %.2f", hn, floorHeldOutNDCG)
	}
}

// broadFeedback simulates a reader of each broad interest of a split acting on every other item
// of the first 40 shown (20 actions: "more like this" on the interest's category, "less like
// this" on the others) and returns, per interest, NDCG@10 on the remaining items without and
// with the model learned from them.
func broadFeedback(t testing.TB, split string, heldOut bool) (before, after map[string]float64) {
	items, category, e, now := broadSplit(t, split)
	before, after = map[string]float64{}, map[string]float64{}
	for _, bi := range broadInterests {
		if bi.heldOut != heldOut {
			continue
		}
		rel := relevantOf(category, bi.category)
		before[bi.interest], after[bi.interest], _ = feedbackRun(t, e, items, bi.interest, rel, now)
	}
	return before, after
}

// feedbackRun simulates a reader of an interest acting on every other item of the first 40
// shown (20 actions: "more like this" on the relevant items, "less like this" on the others)
// and returns NDCG@10 on the remaining items without and with the model learned from them;
// ok is false when no relevant item remains.
func feedbackRun(t testing.TB, e *enrich.Embedded, items []evalItem, interest string, rel map[string]int, now time.Time) (before, after float64, ok bool) {
	r := rank(t, e, items, interest, rel, now, nil)
	model, rest := actOnFirst(e, items, r, interest, now, func(rel int) taste.Signal {
		if rel > 0 {
			return taste.SignalMoreLikeThis
		}
		return taste.SignalLessLikeThis
	})
	before = ndcgAt(rank(t, e, rest, interest, rel, now, nil), 10)
	after = ndcgAt(rank(t, e, rest, interest, rel, now, func(in *app.EnrichInput) { in.Taste = model }), 10)
	return before, after, hasRelevant(rest, rel)
}

// actOnFirst is a reader acting on every other item of the first 40 of ranking r (20 actions,
// each item's signal by its relevance) for interest: the model learned from them, and the items
// not acted on.
func actOnFirst(e *enrich.Embedded, items []evalItem, r []ranked, interest string, now time.Time, signal func(rel int) taste.Signal) (*taste.Model, []evalItem) {
	model := taste.NewModel()
	acted := map[string]bool{}
	for i := 0; i < 40 && i < len(r); i += 2 {
		x := r[i]
		acted[x.item.link] = true
		keys, labs := e.Features(x.item.input(interest, now), nil)
		model.Learn(signal(x.rel), keys, labs)
	}
	var rest []evalItem
	for _, it := range items {
		if !acted[it.link] {
			rest = append(rest, it)
		}
	}
	return model, rest
}

// TestBroadFeedbackEval: 20 feedback actions on broad interests, whose rankings leave room to
// learn (NDCG@10 about 0.75), on both splits. The target: a rise of 0.10 on average and
// no interest falling more than 0.02. Run with -v for the table.
func TestBroadFeedbackEval(t *testing.T) {
	if testing.Short() {
		t.Skip("the broad feedback evaluation ranks 2 × 16 × 2,000 headlines")
	}
	for _, split := range []struct {
		name    string
		heldOut bool
	}{{"dev", false}, {"heldout", true}} {
		b, a := broadFeedback(t, split.name, split.heldOut)
		var sb, sa, worst float64
		for name := range b {
			sb, sa = sb+b[name], sa+a[name]
			worst = min(worst, a[name]-b[name])
			t.Logf("%-8s %-34q NDCG@10 on the rest %.2f -> %.2f", split.name, name, b[name], a[name])
		}
		k := float64(len(b))
		t.Logf("%-8s mean NDCG@10 on the rest %.3f -> %.3f (largest fall %.3f)", split.name, sb/k, sa/k, -worst)
		if sa/k < sb/k+0.03 {
			t.Errorf("%s: 20 feedback actions did not raise the broad rankings: %.3f -> %.3f", split.name, sb/k, sa/k)
		}
		// Floor of the held-out mean after feedback: 0.948 when this evaluation was written
		// (session 12; 0.888 without the model). It rises with a better design, never with tuning.
		const floorHeldOutAfter = 0.92
		if split.heldOut && sa/k < floorHeldOutAfter {
			t.Errorf("held-out NDCG@10 after feedback %.3f under its floor %.2f", sa/k, floorHeldOutAfter)
		}
	}
}

// TestBroadTopicEval gives every headline of both splits the user's topics "Business",
// "Entertainment", "Health" and "Technology" (names only, no keywords) and measures them
// against the headlines' human labels (uci-news-labels.tsv and uci-fine-labels.tsv): how often
// the first topic given is one the labels name (business; film, tv, music, celebrity, comedy,
// style, arts or games; medicine, wellness or parenting; technology or games), over the
// headlines of which one of the four is true, and how often no topic is given to the headlines
// of which none is (world news, politics, crime, science…). Until session 14 the reference was
// the data set's four coarse categories, under which the Ukraine crisis is business and every
// astronomy story technology. Run with -v.
func TestBroadTopicEval(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	topics := []app.Topic{{Name: "Business"}, {Name: "Entertainment"}, {Name: "Health"}, {Name: "Technology"}}
	of := map[string]string{"business": "Business", "film": "Entertainment", "tv": "Entertainment",
		"music": "Entertainment", "celebrity": "Entertainment", "comedy": "Entertainment",
		"style": "Entertainment", "arts": "Entertainment", "games": "Entertainment",
		"medicine": "Health", "wellness": "Health", "parenting": "Health", "technology": "Technology"}
	for _, split := range []string{"dev", "heldout"} {
		items, _ := loadBroad(t, split)
		labels := newsLabels(t, split)
		right, some, none, nothing := 0, 0, 0, 0
		for _, it := range items {
			res, err := e.Enrich(t.Context(), app.EnrichInput{Title: it.title, Link: it.link, Topics: topics})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, l := range labels[it.title] {
				if name, ok := of[l]; ok {
					want[name] = true
				}
			}
			if len(want) == 0 {
				nothing++
				if len(res.Topics) == 0 {
					none++
				}
				continue
			}
			some++
			if len(res.Topics) > 0 && want[res.Topics[0]] {
				right++
			}
		}
		t.Logf("%-8s first topic right %.3f of %d headlines one of the topics is; no topic for %.3f of the %d none is", split, float64(right)/float64(some), some, float64(none)/float64(nothing), nothing)
		if split == "heldout" && float64(right)/float64(some) < broadTopicFloor {
			t.Errorf("held-out: first topic right for %.3f of headlines, under the floor %.2f", float64(right)/float64(some), broadTopicFloor)
		}
	}
}

// broadTopicFloor: the least share of held-out headlines given a right first topic, against
// the human labels (TestBroadTopicEval): 0.781 with the four-topic model (development 0.776),
// 0.763 with ten sections (0.768), whose world news and politics are no longer business, 0.827
// with seventeen (0.821), whose science is not technology. It rises with a better design, never
// with tuning.
const broadTopicFloor = 0.80
