package enrich_test

import (
	"context"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// TestScoreSameByPath scores every item of the evaluation corpus for each labelled interest by
// the two paths an item takes (issue 25): the first import of a fresh installation, one source
// after another (EnrichImport of each feed's items, the statistics learning each batch before
// scoring it), and the process queue of a collection that has seen every item (Enrich). One text
// gets one score: within ±2 points whichever path scored it.
func TestScoreSameByPath(t *testing.T) {
	items := evalCorpus(t)
	labels := loadLabels(t)
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	var names []string
	for n := range labels.Interests {
		names = append(names, n)
	}
	sort.Strings(names)
	byFeed := map[string][]evalItem{}
	var feeds []string
	for _, it := range items {
		if byFeed[it.feed] == nil {
			feeds = append(feeds, it.feed)
		}
		byFeed[it.feed] = append(byFeed[it.feed], it)
	}
	ctx := context.Background()
	var n, within int
	var sumDiff, worst float64
	var ndcgFirst, ndcgQueue [2]float64 // development, held out
	var count [2]float64
	for _, name := range names {
		l := labels.Interests[name]
		split := 0
		if l.HeldOut {
			split = 1
		}
		var rFirst, rQueue []ranked
		first := enrich.NewEmbedded(enrich.EmbeddedOptions{})
		scoreFirst := map[string]int{}
		whyFirst := map[string]string{}
		for _, f := range feeds {
			ins := make([]app.EnrichInput, len(byFeed[f]))
			for i, it := range byFeed[f] {
				ins[i] = it.input(name, now)
			}
			out, err := first.EnrichImport(ctx, ins, true)
			if err != nil {
				t.Fatal(err)
			}
			for i, it := range byFeed[f] {
				scoreFirst[it.link] = out[i].Score
				whyFirst[it.link] = out[i].Reasoning
				rFirst = append(rFirst, ranked{item: it, score: out[i].Score, rel: l.Relevant[it.link]})
			}
		}
		queue := enrich.NewEmbedded(enrich.EmbeddedOptions{})
		for _, it := range items {
			queue.Stats().Observe(it.title + " " + it.text)
		}
		for _, it := range items {
			out, err := queue.Enrich(ctx, it.input(name, now))
			if err != nil {
				t.Fatal(err)
			}
			rQueue = append(rQueue, ranked{item: it, score: out.Score, rel: l.Relevant[it.link]})
			d := math.Abs(float64(out.Score - scoreFirst[it.link]))
			n++
			sumDiff += d
			worst = max(worst, d)
			if d <= 2 {
				within++
			} else if testing.Verbose() && d >= 8 {
				t.Logf("%2.0f %q %q: first import %d (%s), queue %d (%s)", d, name, it.title, scoreFirst[it.link], whyFirst[it.link], out.Score, out.Reasoning)
			}
		}
		for _, r := range [][]ranked{rFirst, rQueue} {
			sort.SliceStable(r, func(i, j int) bool {
				if r[i].score != r[j].score {
					return r[i].score > r[j].score
				}
				return r[i].item.link < r[j].item.link
			})
		}
		ndcgFirst[split] += ndcgAt(rFirst, 10)
		ndcgQueue[split] += ndcgAt(rQueue, 10)
		count[split]++
	}
	t.Logf("NDCG@10 by the first-import path: development %.3f, held out %.3f; by the queue: %.3f, %.3f",
		ndcgFirst[0]/count[0], ndcgFirst[1]/count[1], ndcgQueue[0]/count[0], ndcgQueue[1]/count[1])
	share := float64(within) / float64(n)
	t.Logf("%d scores: %.1f%% within ±2 points by path, mean difference %.2f, largest %.0f", n, 100*share, sumDiff/float64(n), worst)
	if share < 0.98 {
		t.Errorf("only %.1f%% of scores within ±2 points whichever path scored them; want ≥ 98%%", 100*share)
	}
}
