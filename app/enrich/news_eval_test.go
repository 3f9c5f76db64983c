package enrich_test

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

// newsSections are the broad interests a person writes for the sections of a general news
// outlet — the sixteen the issue's own measurement used — with the labels whose headlines are
// relevant: the news labels of testdata/corpus/topics/uci-news-labels.tsv (politics, world,
// business, sports, crime, religion, media; every headline of the sample) and the fine labels
// of uci-fine-labels.tsv (the e, m and t headlines). Both splits are ranked for them;
// parameters are chosen on the development headlines only.
var newsSections = []struct {
	interest string
	labels   []string
}{
	{"US politics, Congress and elections", []string{"politics"}},
	{"entertainment", []string{"film", "tv", "music", "celebrity"}},
	{"world news", []string{"world"}},
	{"technology", []string{"technology"}},
	{"business", []string{"business"}},
	{"sports", []string{"sports"}},
	{"healthy living and wellness", []string{"wellness"}},
	{"parenting", []string{"parenting"}},
	{"food and cooking", []string{"food"}},
	{"religion", []string{"religion"}},
	{"science", []string{"science"}},
	{"comedy", []string{"comedy"}},
	{"crime", []string{"crime"}},
	{"media", []string{"media"}},
	{"the environment", []string{"environment"}},
	{"style and beauty", []string{"style"}},
}

// newsSectionsHeldOut are other words for the same sections, ranked over the held-out
// headlines only: never looked at to choose anything.
var newsSectionsHeldOut = []struct {
	interest string
	labels   []string
}{
	{"American politics", []string{"politics"}},
	{"international affairs", []string{"world"}},
	{"football, basketball and other sports", []string{"sports"}},
	{"courts, police and crime", []string{"crime"}},
	{"faith and the churches", []string{"religion"}},
	{"journalism and the news media", []string{"media"}},
	{"the economy and companies", []string{"business"}},
	{"films, music and television", []string{"film", "tv", "music"}},
}

// newsLabels reads a split's labels of both files: headline → labels.
func newsLabels(t testing.TB, split string) map[string][]string {
	t.Helper()
	out := fineLabels(t, split)
	f, err := os.Open("../../testdata/corpus/topics/uci-news-labels.tsv")
	if err != nil {
		t.Fatalf("the news labels are missing (%v): they are part of the repository", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 4 || c[0] != split {
			continue
		}
		n++
		if c[3] != "none" {
			out[c[2]] = append(out[c[2]], strings.Split(c[3], ",")...)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d labelled headlines in the %s split", n, split)
	}
	return out
}

// labelled marks relevant (1) the items with one of the wanted labels.
func labelled(items []evalItem, labels map[string][]string, want []string) map[string]int {
	rel := map[string]int{}
	for _, it := range items {
		for _, h := range labels[it.title] {
			if slices.Contains(want, h) {
				rel[it.link] = 1
			}
		}
	}
	return rel
}

// newsScores ranks a split's headlines for each section interest and returns the mean NDCG@10.
func newsScores(t testing.TB, split string, sections []struct {
	interest string
	labels   []string
}, log bool) (n float64, per map[string]float64) {
	items, _, e, now := broadSplit(t, split)
	labels := newsLabels(t, split)
	per = map[string]float64{}
	for _, s := range sections {
		rel := labelled(items, labels, s.labels)
		r := rank(t, e, items, s.interest, rel, now, nil)
		ni := ndcgAt(r, 10)
		per[s.interest] = ni
		n += ni
		if show := os.Getenv("NEWS_SHOW"); show != "" && strings.Contains(s.interest, show) {
			for i, x := range r[:20] {
				t.Logf("   %2d %3d rel %d %-60.60q %.70s", i+1, x.score, x.rel, x.item.title, x.why)
			}
		}
		if log {
			t.Logf("%-8s %-40q relevant %4d  P@10 %.2f NDCG@10 %.2f  first: %.50q (%.60s)", split, s.interest, len(rel), precisionAt(r, 10), ni, r[0].item.title, r[0].why)
		}
	}
	return n / float64(len(sections)), per
}

// TestNewsSectionEval ranks the sample's headlines for the sections of a general news outlet
// (BENCHMARKS.md, session 14): the sixteen interests on both splits, other words for them on
// the held-out split. Run with -v for the table.
func TestNewsSectionEval(t *testing.T) {
	dn, _ := newsScores(t, "dev", newsSections, testing.Verbose())
	hn, _ := newsScores(t, "heldout", newsSections, testing.Verbose())
	on, _ := newsScores(t, "heldout", newsSectionsHeldOut, testing.Verbose())
	t.Logf("news sections: development NDCG@10 %.3f; held out %.3f; held-out wordings %.3f", dn, hn, on)
	// Floor of the held-out NDCG@10: 0.403 with the four-topic model (development 0.514),
	// 0.485 with ten sections (0.574), 0.572 with seventeen (0.619; held-out wordings 0.348,
	// 0.347, 0.356), 0.720 with items read against a named section's seeds through the word
	// vectors too (0.764; wordings 0.563; session 15). It rises with a better design, never
	// with tuning.
	const floorHeldOut = 0.68
	if hn < floorHeldOut {
		t.Errorf("held-out NDCG@10 %.3f under its floor %.2f", hn, floorHeldOut)
	}
}

// TestNewsSectionFeedback simulates a reader of each section interest acting on every other
// item of the first 40 shown (20 actions: "more like this" on the section's headlines, "less
// like this" on the others) and compares NDCG@10 on the remaining items without and with the
// model learned from them, on both splits. The target: a rise of 0.10 on average, no
// interest falling more than 0.02. Run with -v for the table.
func TestNewsSectionFeedback(t *testing.T) {
	for _, split := range []string{"dev", "heldout"} {
		items, _, e, now := broadSplit(t, split)
		labels := newsLabels(t, split)
		var sb, sa, worst float64
		k := 0
		for _, s := range newsSections {
			before, after, ok := feedbackRun(t, e, items, s.interest, labelled(items, labels, s.labels), now)
			if !ok {
				continue
			}
			sb, sa, k = sb+before, sa+after, k+1
			worst = max(worst, before-after)
			t.Logf("%-8s %-40q NDCG@10 on the rest %.2f -> %.2f", split, s.interest, before, after)
		}
		t.Logf("%-8s news sections: mean NDCG@10 on the rest %.3f -> %.3f (%d interests; largest fall %.3f)", split, sb/float64(k), sa/float64(k), k, worst)
		// Floor of the held-out mean after feedback: 0.421 with the four-topic model (0.309
		// before it), 0.486 with ten sections (0.387), 0.506 with seventeen (0.426), 0.642 with
		// the sections' seeds read through the word vectors (0.624). It rises with a better
		// design, never with tuning.
		if split == "heldout" && sa/float64(k) < 0.60 {
			t.Errorf("held-out NDCG@10 after feedback %.3f under its floor 0.60", sa/float64(k))
		}
	}
}
