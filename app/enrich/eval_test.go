package enrich_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/taste"
)

// evalItem is one item of the evaluation corpus.
type evalItem struct {
	link, feed, title, text, author string
	pub                             *time.Time
	audio                           bool
}

// evalCorpus parses every feed of testdata/corpus/feeds and testdata/corpus/encodings with the
// real feed parser, served over a loopback HTTP server, and keeps the first item of each link.
func evalCorpus(t testing.TB) []evalItem {
	t.Helper()
	var out []evalItem
	seen := map[string]bool{}
	f := feeds.New(feeds.Options{})
	for _, dir := range []string{"../../testdata/corpus/feeds", "../../testdata/corpus/encodings"} {
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("The evaluation corpus %s is missing or empty (%v): the ranking evaluation needs testdata/corpus.", dir, err)
		}
		srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
		for _, file := range files {
			name := filepath.Base(file)
			if strings.HasSuffix(name, ".md") || strings.HasPrefix(name, "LICENSE") {
				continue
			}
			res, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL + "/" + name, Type: app.SourceRSS})
			if err != nil {
				continue // fragments and HTML pages are not feeds
			}
			for _, it := range res.Items {
				if it.Link == "" || seen[it.Link] {
					continue
				}
				seen[it.Link] = true
				// Relative links resolve against the test server, whose port changes: the labels
				// know them under http://corpus.invalid.
				link := strings.Replace(it.Link, srv.URL, "http://corpus.invalid", 1)
				out = append(out, evalItem{link: link, feed: name, title: it.Title, text: it.Text, author: it.Author, pub: it.PublishedAt, audio: it.Audio()})
			}
		}
		srv.Close()
	}
	return out
}

func (it evalItem) input(interests string, now time.Time) app.EnrichInput {
	return app.EnrichInput{Title: it.title, Text: it.text, Link: it.link, Author: it.author, SourceName: it.feed,
		PublishedAt: it.pub, Now: now, Interests: interests, Audio: it.audio}
}

func hasRelevant(items []evalItem, rel map[string]int) bool {
	for _, it := range items {
		if rel[it.link] > 0 {
			return true
		}
	}
	return false
}

type labelFile struct {
	Interests map[string]struct {
		HeldOut  bool           `json:"held_out"`
		Relevant map[string]int `json:"relevant"`
		Added    int            `json:"added"` // the session that added it; 0 for the first twelve
	} `json:"interests"`
}

func loadLabels(t testing.TB) labelFile {
	t.Helper()
	b, err := os.ReadFile("testdata/ranking_labels.json")
	if err != nil {
		t.Fatal(err)
	}
	var l labelFile
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("testdata/ranking_labels.json: %v", err)
	}
	return l
}

// ranked is an item with its enrichment, for one interest.
type ranked struct {
	item  evalItem
	score int
	why   string
	rel   int
}

// rank enriches every item for interests and sorts by score (ties by link, so the order is
// deterministic and no tie is broken in the labels' favour).
func rank(t testing.TB, e *enrich.Embedded, items []evalItem, interests string, rel map[string]int, now time.Time, extra func(*app.EnrichInput)) []ranked {
	t.Helper()
	out := make([]ranked, 0, len(items))
	for _, it := range items {
		in := it.input(interests, now)
		if extra != nil {
			extra(&in)
		}
		res, err := e.Enrich(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ranked{item: it, score: res.Score, why: res.Reasoning, rel: rel[it.link]})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].item.link < out[j].item.link
	})
	return out
}

// precisionAt is the share of the first k items that are relevant (label ≥ 1).
func precisionAt(r []ranked, k int) float64 {
	n := 0
	for i := 0; i < k && i < len(r); i++ {
		if r[i].rel > 0 {
			n++
		}
	}
	return float64(n) / float64(k)
}

// ndcgAt is the normalized discounted cumulative gain of the first k items, gain 2^label−1.
func ndcgAt(r []ranked, k int) float64 {
	dcg := func(labels []int) float64 {
		var s float64
		for i := 0; i < k && i < len(labels); i++ {
			s += (math.Pow(2, float64(labels[i])) - 1) / math.Log2(float64(i+2))
		}
		return s
	}
	got := make([]int, len(r))
	for i, x := range r {
		got[i] = x.rel
	}
	ideal := append([]int(nil), got...)
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	if d := dcg(ideal); d > 0 {
		return dcg(got) / d
	}
	return 0
}

const matchClaim = "Matches your interests"

// TestRankingEval ranks the corpus for each labelled interest with the real parser and the
// embedded enricher and reports precision@10 and NDCG@10, and the share of "Matches your
// interests" reasons that are on relevant items. Run with -v for the table. The floors below
// only rise.
func TestRankingEval(t *testing.T) {
	items := evalCorpus(t)
	labels := loadLabels(t)
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	for _, it := range items {
		e.Stats().Observe(it.title + " " + it.text)
	}
	names := make([]string, 0, len(labels.Interests))
	for n := range labels.Interests {
		names = append(names, n)
	}
	sort.Strings(names)
	var sumR float64
	var relevantN, toldNoMatch int
	// all the interests; first: the first twelve (Added 0), on which the floors below were set
	// (the interests of one or two words added in session 17, "privacy", "smartphones", …,
	// have floors of their own); twenty: the interests up to session 17 (Added ≤ 17), on which
	// the floors of all the interests were set before session 18 added four more.
	var all, first, twenty rankTally
	t.Logf("%-58s %6s %6s %6s %s", "interest", "P@10", "RP@10", "NDCG", "top 3")
	for _, name := range names {
		l := labels.Interests[name]
		r := rank(t, e, items, name, l.Relevant, now, nil)
		p, n := precisionAt(r, 10), ndcgAt(r, 10)
		// R-precision at 10: precision over the first min(10, R) items, R the number of relevant
		// items (several interests have fewer than 10, which caps P@10 below 1).
		nrel := 0
		for _, v := range l.Relevant {
			if v > 0 {
				nrel++
			}
		}
		rp := precisionAt(r, min(10, nrel))
		sumR += rp
		all.add(r, p, n, l.HeldOut)
		if l.Added == 0 {
			first.add(r, p, n, l.HeldOut)
		}
		if l.Added <= 17 {
			twenty.add(r, p, n, l.HeldOut)
		}
		for _, x := range r {
			if x.rel > 0 {
				relevantN++
				if strings.Contains(x.why, "No match") {
					toldNoMatch++
				}
			}
		}
		held := ""
		if l.HeldOut {
			held = " (held out)"
		}
		var top []string
		for i := 0; i < 3; i++ {
			top = append(top, fmt.Sprintf("%d:%d %.30q", r[i].score, r[i].rel, r[i].item.title))
		}
		t.Logf("%-58s %6.2f %6.2f %6.2f %s", name+held, p, rp, n, strings.Join(top, " "))
		if show := os.Getenv("EVAL_SHOW"); show != "" && strings.Contains(name, show) {
			// EVAL_SHOW=interest prints its first 20 items and where its relevant items landed.
			for i, x := range r {
				if i < 20 || x.rel > 0 {
					t.Logf("   %3d %3d rel %d %-60.60q %s", i+1, x.score, x.rel, x.item.title, x.why)
				}
			}
		}
	}
	t.Logf("held-out interests: NDCG@10 %.4f (%d); development: %.4f", all.heldOut(), int(all.heldK), all.dev())
	t.Logf("the first twelve: held-out NDCG@10 %.4f (%d); development: %.4f", first.heldOut(), int(first.heldK), first.dev())
	t.Logf("the first twenty: held-out NDCG@10 %.4f (%d); development: %.4f", twenty.heldOut(), int(twenty.heldK), twenty.dev())
	t.Logf("mean P@10 %.4f, R-precision@10 %.4f, NDCG@10 %.4f, %d of %d %q reasons on relevant items (%.0f%%), %d of %d relevant items told \"No match\"",
		all.p/all.k, sumR/all.k, all.n/all.k, all.trueClaims, all.claims, matchClaim, 100*all.share(), toldNoMatch, relevantN)

	// A simulated reader acts on every other item of the first 40 shown (20 actions): "more like
	// this" on items labelled 2, opens those labelled 1, "less like this" on the others. The model
	// learned from them must raise NDCG@10 on the remaining items.
	var sumBefore, sumAfter float64
	var counted int
	var heldBefore, heldAfter, heldCounted, worstFall float64
	var twentyHeldAfter, twentyHeldCounted float64 // the held-out interests of the first twenty
	var firstBefore, firstAfter, firstCounted float64
	t.Logf("%-58s %8s %8s %s", "after 20 feedback actions", "NDCG", "with it", "reason of the new first item")
	for _, name := range names {
		l := labels.Interests[name]
		r := rank(t, e, items, name, l.Relevant, now, nil)
		model, rest := actOnFirst(e, items, r, name, now, func(rel int) taste.Signal {
			switch rel {
			case 2:
				return taste.SignalMoreLikeThis
			case 1:
				return taste.SignalOpened
			}
			return taste.SignalLessLikeThis
		})
		// The model goes through JSON, as the pipeline stores it.
		b, err := json.Marshal(model)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := taste.ParseModel(b)
		if err != nil {
			t.Fatal(err)
		}
		before := ndcgAt(rank(t, e, rest, name, l.Relevant, now, nil), 10)
		withModel := rank(t, e, rest, name, l.Relevant, now, func(in *app.EnrichInput) { in.Taste = stored })
		after := ndcgAt(withModel, 10)
		if !hasRelevant(rest, l.Relevant) {
			t.Logf("%-58s %8s %8s (no relevant item left)", name, "-", "-")
			continue
		}
		counted++
		sumBefore += before
		sumAfter += after
		worstFall = max(worstFall, before-after)
		if l.Added == 0 {
			firstCounted++
			firstBefore += before
			firstAfter += after
		}
		if l.HeldOut {
			heldCounted++
			heldBefore += before
			heldAfter += after
			if l.Added <= 17 {
				twentyHeldCounted++
				twentyHeldAfter += after
			}
		}
		t.Logf("%-58s %8.2f %8.2f %.90s", name, before, after, withModel[0].why)
		if show := os.Getenv("EVAL_SHOW"); show != "" && strings.Contains(name, show) {
			for i, x := range withModel {
				if i < 15 || x.rel > 0 {
					t.Logf("   %3d %3d rel %d %-50.50q %s", i+1, x.score, x.rel, x.item.title, x.why)
				}
			}
		}
	}
	meanBefore, meanAfter := sumBefore/float64(max(counted, 1)), sumAfter/float64(max(counted, 1))
	t.Logf("mean NDCG@10 on the rest: %.4f without the model, %.4f with it (%d interests); largest fall of one %.3f", meanBefore, meanAfter, counted, worstFall)
	t.Logf("feedback, development: %.4f -> %.4f; held out: %.4f -> %.4f (%d)", (sumBefore-heldBefore)/max(float64(counted)-heldCounted, 1), (sumAfter-heldAfter)/max(float64(counted)-heldCounted, 1),
		heldBefore/max(heldCounted, 1), heldAfter/max(heldCounted, 1), int(heldCounted))
	// Floor of the NDCG@10 on the rest with the model (0.850 in session 3; 0.900 in session 4,
	// with the concept lexicon and the interest terms learned).
	// Session 11: 0.875 (0.856 without the model), the statistics no longer fitted to the
	// collection (one score for one text) and a word counted in the item's sense; see below.
	// Checked on the first twelve interests (the floor's own set).
	const floorAfter = 0.87
	fb, fa := firstBefore/max(firstCounted, 1), firstAfter/max(firstCounted, 1)
	t.Logf("feedback, the first twelve: %.4f -> %.4f (%d)", fb, fa, int(firstCounted))
	if firstCounted == 0 || fa < fb+0.01 || fa < floorAfter {
		t.Errorf("20 feedback actions did not raise NDCG@10 on the rest enough: %.3f -> %.3f (floor %.2f)", fb, fa, floorAfter)
	}
	// Session 19: the held-out interests of the first twenty after 20 actions, with the
	// class-balanced model (chosen on development): 0.634 (0.662 without the model; 0.558 with
	// plain counts). Feedback still costs them a little; the floor keeps it from costing more.
	// Raise it, never lower it.
	const floorFeedbackHeldOut = 0.62
	t.Logf("feedback, the held-out interests of the first twenty: -> %.4f (%d)", twentyHeldAfter/max(twentyHeldCounted, 1), int(twentyHeldCounted))
	if ha := twentyHeldAfter / max(twentyHeldCounted, 1); twentyHeldCounted == 0 || ha < floorFeedbackHeldOut {
		t.Errorf("20 feedback actions cost the held-out interests too much: %.3f after (floor %.2f)", ha, floorFeedbackHeldOut)
	}
	// Floors: the figures when they were last raised (before this work: P@10 0.49, NDCG@10 0.59,
	// 27 % true reasons). Raise them when the ranking improves; never lower them.
	// Measured with the feed parser of issue 15 (origLink links, Media RSS text): P@10 0.710, NDCG@10
	// 0.849, true reasons 0.89. Session 3 (corrected labels, two interests added, names of several
	// words as phrases, the first 5,000 characters read): P@10 0.783, NDCG@10 0.881, true reasons
	// 0.918; the floors sit just under. Session 4 (interests matched across languages through the
	// concept lexicon): P@10 0.808, NDCG@10 0.899, true reasons 0.928.
	// Session 11 lowered them once, for one score for one text (issue 25): word weights from
	// general English as evidence against the collection's, a constant reference length, no
	// phrase split by collection statistics. The development interests fell (NDCG@10 0.898 →
	// 0.885), the held-out ones held (0.920 → 0.913), and a first import now scores as the queue
	// does (TestScoreSameByPath). The held-out floor is the one that matters.
	const floorP, floorN, floorShare, floorHeldOut = 0.78, 0.88, 0.90, 0.90
	if first.p/first.k < floorP || first.n/first.k < floorN || first.share() < floorShare || first.heldOut() < floorHeldOut {
		t.Fatalf("the ranking got worse on the first twelve: P@10 %.3f (floor %.2f), NDCG@10 %.3f (floor %.2f), true reasons %.2f (floor %.2f), held-out NDCG@10 %.3f (floor %.2f)",
			first.p/first.k, floorP, first.n/first.k, floorN, first.share(), floorShare, first.heldOut(), floorHeldOut)
	}
	// Session 17: all twenty interests, with the lone subjects read as themselves rather than
	// as their news topic (newsSubjectGain): held-out NDCG@10 0.646 (seven interests; 0.566
	// before), development 0.732 (0.678 before). The floors sit just under; raise them when
	// the ranking improves, never lower them. Checked on those twenty (the floors' own set).
	const floorAllHeldOut, floorAllDev = 0.62, 0.71
	if twenty.heldOut() < floorAllHeldOut || twenty.dev() < floorAllDev {
		t.Fatalf("the ranking got worse on the first twenty interests: held-out NDCG@10 %.3f (floor %.2f), development %.3f (floor %.2f)",
			twenty.heldOut(), floorAllHeldOut, twenty.dev(), floorAllDev)
	}
}

// rankTally sums a set of interests' figures: P@10, NDCG@10 (and over the held-out ones), and
// the "Matches your interests" reasons, how many were on relevant items.
type rankTally struct {
	p, n, k, heldN, heldK float64
	claims, trueClaims    int
}

func (s *rankTally) add(r []ranked, p, n float64, heldOut bool) {
	s.p += p
	s.n += n
	s.k++
	if heldOut {
		s.heldN += n
		s.heldK++
	}
	for _, x := range r {
		if strings.Contains(x.why, matchClaim) {
			s.claims++
			if x.rel > 0 {
				s.trueClaims++
			}
		}
	}
}

func (s *rankTally) heldOut() float64 { return s.heldN / max(s.heldK, 1) }
func (s *rankTally) dev() float64     { return (s.n - s.heldN) / max(s.k-s.heldK, 1) }
func (s *rankTally) share() float64 {
	return float64(s.trueClaims) / float64(max(s.claims, 1))
}
