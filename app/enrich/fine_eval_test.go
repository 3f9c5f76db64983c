package enrich_test

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// fineInterests are interests a person writes for a subject that is a part of one of the news
// model's four topics ("comedy" of entertainment, "science" of science and technology,
// "parenting" of health) or the whole of one ("entertainment"), with the fine labels of
// testdata/corpus/topics/uci-fine-labels.tsv whose headlines are relevant (a coarse category,
// "cat:e", for a whole topic). A subject is not its topic: "comedy" asks for comedians, not
// for every film and singer, "science" for discoveries, not for phones.
var fineInterests = []struct {
	interest string
	labels   []string
}{
	{"science", []string{"science"}},
	{"technology", []string{"technology"}},
	{"the environment", []string{"environment"}},
	{"comedy", []string{"comedy"}},
	{"style and beauty", []string{"style"}},
	{"music", []string{"music"}},
	{"movies", []string{"film"}},
	{"television", []string{"tv"}},
	{"celebrities", []string{"celebrity"}},
	{"healthy living and wellness", []string{"wellness"}},
	{"parenting", []string{"parenting"}},
	{"food and cooking", []string{"food"}},
	{"medicine and diseases", []string{"medicine"}},
	{"video games", []string{"games"}},
	{"books and the arts", []string{"arts"}},
	{"entertainment", []string{"cat:e"}},
	{"health", []string{"cat:m"}},
	{"business", []string{"cat:b"}},
}

// fineLabels reads the fine labels of a split's headlines: headline → labels (with "cat:" and
// the coarse category).
func fineLabels(t testing.TB, split string) map[string][]string {
	t.Helper()
	f, err := os.Open("../../testdata/corpus/topics/uci-fine-labels.tsv")
	if err != nil {
		t.Fatalf("the fine labels are missing (%v): they are part of the repository", err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 4 || c[0] != split {
			continue
		}
		out[c[2]] = append(out[c[2]], strings.Split(c[3], ",")...)
	}
	return out
}

// fineScores ranks a split's headlines for every fine interest and returns the mean NDCG@10.
func fineScores(t testing.TB, split string, log bool) (n float64, per map[string]float64) {
	items, category, e, now := broadSplit(t, split)
	labels := fineLabels(t, split)
	per = map[string]float64{}
	for _, fi := range fineInterests {
		rel := map[string]int{}
		for _, it := range items {
			have := append([]string{"cat:" + category[it.link]}, labels[it.title]...)
			for _, l := range fi.labels {
				for _, h := range have {
					if h == l {
						rel[it.link] = 1
					}
				}
			}
		}
		r := rank(t, e, items, fi.interest, rel, now, nil)
		ni := ndcgAt(r, 10)
		per[fi.interest] = ni
		n += ni
		if show := os.Getenv("FINE_SHOW"); show != "" && strings.Contains(fi.interest, show) {
			for i, x := range r[:15] {
				t.Logf("   %2d %3d rel %d %-60.60q %.70s", i+1, x.score, x.rel, x.item.title, x.why)
			}
		}
		if log {
			t.Logf("%-8s %-30q relevant %4d  P@10 %.2f NDCG@10 %.2f  first: %.50q (%.60s)", split, fi.interest, len(rel), precisionAt(r, 10), ni, r[0].item.title, r[0].why)
		}
	}
	return n / float64(len(fineInterests)), per
}

// TestFineTopicEval ranks the headlines of both splits for subjects that are parts of the news
// model's topics, and for the topics themselves (BENCHMARKS.md, session 13). Parameters are
// chosen on the development split only. Run with -v for the table.
func TestFineTopicEval(t *testing.T) {
	dn, _ := fineScores(t, "dev", testing.Verbose())
	hn, _ := fineScores(t, "heldout", testing.Verbose())
	t.Logf("fine subjects: development NDCG@10 %.3f; held-out %.3f", dn, hn)
	// Floor of the held-out NDCG@10: 0.508 with the news topics read whole for any subject of
	// theirs, 0.548 read relative to the topic's name (session 13), 0.620 with seventeen
	// sections, comedy, style, parenting, wellness, food, environment and science among them
	// (session 14), 0.651 with a named section's seeds read through the word vectors (session
	// 15). It rises with a better design, never with tuning.
	const floorHeldOut = 0.62
	if hn < floorHeldOut {
		t.Errorf("held-out NDCG@10 %.3f under its floor %.2f", hn, floorHeldOut)
	}
}
