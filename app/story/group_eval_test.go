package story_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/morningdeck/morningdeck/app/story"
)

var (
	groupDisagreements = flag.Int("group-disagreements", 0, "print this many false merges and misses per day of the story-grouping evaluation")
	groupSet           = flag.String("group-set", "", `other parameter values for the story-grouping evaluation, as "outlier=0 loners=0" (names: story.GroupTuning), to reproduce the figures of other settings`)
	groupWindow        = flag.Duration("group-window", 0, "the window of the story-grouping evaluation (0: Group's default)")
)

// groupHeadline is a row of uci-dev.tsv.
type groupHeadline struct {
	day, story, outlet, title string
	at                        time.Time
}

// loadGroupCorpus reads the development split of same-story headlines, by day.
func loadGroupCorpus(t testing.TB) map[string][]groupHeadline {
	return loadGroupFile(t, "uci-dev.tsv", "")
}

// loadGroupHeldOut reads the held-out split (three other days, never used to choose anything),
// its days named h0, h1, h2.
func loadGroupHeldOut(t testing.TB) map[string][]groupHeadline {
	return loadGroupFile(t, "uci-heldout.tsv", "h")
}

func loadGroupFile(t testing.TB, name, prefix string) map[string][]groupHeadline {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "corpus", "stories", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the same-story corpus is missing (%v): it is part of the repository (testdata/corpus/stories)", err)
	}
	defer f.Close()
	days := map[string][]groupHeadline{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		if strings.HasPrefix(sc.Text(), "#") || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		col := strings.Split(sc.Text(), "\t")
		if len(col) != 6 {
			t.Fatalf("%s line %d: %d columns, want 6", path, line, len(col))
		}
		ms, err := strconv.ParseInt(col[3], 10, 64)
		if err != nil {
			t.Fatalf("%s line %d: timestamp %q: %v", path, line, col[3], err)
		}
		days[prefix+col[0]] = append(days[prefix+col[0]], groupHeadline{day: prefix + col[0], story: col[1], outlet: col[2], title: col[5], at: time.UnixMilli(ms).UTC()})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(days) == 0 {
		t.Fatalf("%s holds no headlines", path)
	}
	// Input order is the order items arrive in (by time), never the reference's order, which
	// lists a story's headlines together.
	for _, hs := range days {
		sort.SliceStable(hs, func(i, j int) bool { return hs[i].at.Before(hs[j].at) })
	}
	return days
}

type groupScores struct {
	pairP, pairR, pairF, b3P, b3R, b3F float64
	items, groups, stories             int
	// falsePairs: pairs of one predicted group from different reference stories; falseApart:
	// those whose two headlines were crawled more than an hour apart.
	falsePairs, falseApart int
}

// scoreGrouping measures predicted groups against the reference's story ids: pairwise
// precision/recall over all pairs of a day, and B-cubed (per item, averaged).
func scoreGrouping(hs []groupHeadline, groups [][]int) groupScores {
	pred := make([]int, len(hs))
	for g, members := range groups {
		for _, m := range members {
			pred[m] = g
		}
	}
	predSize := map[int]int{}
	goldSize := map[string]int{}
	both := map[string]int{}
	for i, h := range hs {
		predSize[pred[i]]++
		goldSize[h.story]++
		both[fmt.Sprint(pred[i], "\x00", h.story)]++
	}
	s := groupScores{items: len(hs), groups: len(groups), stories: len(goldSize)}
	var tp, predPairs, goldPairs float64
	for _, c := range both {
		tp += float64(c * (c - 1) / 2)
	}
	for _, c := range predSize {
		predPairs += float64(c * (c - 1) / 2)
	}
	for _, c := range goldSize {
		goldPairs += float64(c * (c - 1) / 2)
	}
	s.pairP, s.pairR = ratio(tp, predPairs), ratio(tp, goldPairs)
	s.pairF = f1(s.pairP, s.pairR)
	for i, h := range hs {
		c := float64(both[fmt.Sprint(pred[i], "\x00", h.story)])
		s.b3P += c / float64(predSize[pred[i]])
		s.b3R += c / float64(goldSize[h.story])
	}
	for _, members := range groups {
		for a := range members {
			for b := a + 1; b < len(members); b++ {
				x, y := hs[members[a]], hs[members[b]]
				if x.story == y.story {
					continue
				}
				s.falsePairs++
				if d := x.at.Sub(y.at); d > time.Hour || d < -time.Hour {
					s.falseApart++
				}
			}
		}
	}
	s.b3P /= float64(len(hs))
	s.b3R /= float64(len(hs))
	s.b3F = f1(s.b3P, s.b3R)
	return s
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 1
	}
	return a / b
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func groupCorpusStories(hs []groupHeadline) []story.Story {
	out := make([]story.Story, len(hs))
	for i, h := range hs {
		out[i] = story.Story{Title: h.title, At: h.at, Source: h.outlet}
	}
	return out
}

// Parameters were chosen on days 0 and 1; day 2 was held out and is reported on its own.
const groupHeldOutDay = "2"

// groupFloors are the least each day must score (pairwise precision, B-cubed F1). They only
// ever rise. The held-out days (h0–h2: 2014-05-08, 2014-06-18, 2014-08-01, the dozen busiest
// outlets of each) sit under their figures when they were added; all days were raised in session
// 12 to a little under the learned link model's figures (BENCHMARKS.md).
var groupFloors = map[string][2]float64{
	"0":  {0.99, 0.82},
	"1":  {0.93, 0.82},
	"2":  {0.91, 0.89},
	"h0": {0.97, 0.84},
	"h1": {0.92, 0.77},
	"h2": {0.91, 0.70},
}

func TestGroupOnSameStoryHeadlines(t *testing.T) {
	days := loadGroupCorpus(t)
	for d, hs := range loadGroupHeldOut(t) {
		days[d] = hs
	}
	for _, spec := range strings.Fields(*groupSet) {
		name, value, _ := strings.Cut(spec, "=")
		p := story.GroupTuning[name]
		if p == nil {
			t.Fatalf("-group-set: no parameter %q", name)
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("-group-set: %s=%q: %v", name, value, err)
		}
		saved := *p
		*p = v
		defer func() { *p = saved }()
	}
	if *groupSet != "" || *groupWindow != 0 {
		t.Logf("settings: %q, window %v (the floors are for the defaults)", *groupSet, *groupWindow)
	}
	names := make([]string, 0, len(days))
	for d := range days {
		names = append(names, d)
	}
	sort.Strings(names)
	t.Logf("%-4s %5s %6s %7s  %6s %6s %6s  %6s %6s %6s   %s", "day", "items", "groups", "stories", "pairP", "pairR", "pairF", "b3P", "b3R", "b3F", "false pairs crawled > 1 h apart")
	var sum [2][4]float64 // development, held out: pairP, pairR, b3F, recall of pairs in stories of 16+
	var n [2]float64
	for _, d := range names {
		hs := days[d]
		g := story.Group(groupCorpusStories(hs), story.GroupOptions{Window: *groupWindow})
		s := scoreGrouping(hs, g.Groups)
		split := 0
		if strings.HasPrefix(d, "h") {
			split = 1
		}
		sum[split][0] += s.pairP
		sum[split][1] += s.pairR
		sum[split][2] += s.b3F
		sum[split][3] += bigStoryRecall(hs, g.Groups, 16)
		n[split]++
		label := d
		if d == groupHeldOutDay {
			label += "*"
		}
		t.Logf("%-4s %5d %6d %7d  %6.3f %6.3f %6.3f  %6.3f %6.3f %6.3f   %4d of %4d", label, s.items, s.groups, s.stories, s.pairP, s.pairR, s.pairF, s.b3P, s.b3R, s.b3F, s.falseApart, s.falsePairs)
		floor, ok := groupFloors[d]
		if !ok {
			t.Errorf("day %s has no floor: add one to groupFloors", d)
			continue
		}
		if s.pairP < floor[0] {
			t.Errorf("day %s: pairwise precision %.3f is below its floor %.2f", d, s.pairP, floor[0])
		}
		if s.b3F < floor[1] {
			t.Errorf("day %s: B-cubed F1 %.3f is below its floor %.2f", d, s.b3F, floor[1])
		}
		if *groupDisagreements > 0 {
			printGroupDisagreements(t, hs, g, *groupDisagreements)
		}
	}
	for i, name := range []string{"development", "held out"} {
		t.Logf("%s days: pairwise precision %.3f, recall %.3f, B-cubed F1 %.3f; pairwise recall in stories of 16+ headlines %.3f",
			name, sum[i][0]/n[i], sum[i][1]/n[i], sum[i][2]/n[i], sum[i][3]/n[i])
	}
	t.Logf("* held out while choosing the parameters of the first version (all three days are development days now); h0–h2: held out, never tuned on")
	t.Logf("The reference's ids come from an aggregator's crawls: all headlines of an id were crawled within two minutes (at most 107 s), and one")
	t.Logf("event covered again hours later got a new id. A false pair whose headlines were crawled more than an hour apart is")
	t.Logf("often such a split (read them with -group-disagreements). Group's link model counts the hours apart only beyond a")
	t.Logf("three-hour burst (a finer time feature would learn the crawler); its window is 72 hours.")
}

// bigStoryRecall is the pairwise recall within the reference stories of at least min headlines.
func bigStoryRecall(hs []groupHeadline, groups [][]int, min int) float64 {
	size := map[string]int{}
	for _, h := range hs {
		size[h.story]++
	}
	in := make([]int, len(hs))
	for i := range in {
		in[i] = -1 - i
	}
	for g, members := range groups {
		for _, m := range members {
			in[m] = g
		}
	}
	var pairs, found float64
	for i := range hs {
		for j := i + 1; j < len(hs); j++ {
			if hs[i].story == hs[j].story && size[hs[i].story] >= min {
				pairs++
				if in[i] == in[j] {
					found++
				}
			}
		}
	}
	return ratio(found, pairs)
}

// TestGroupNeverLinksOnOneWord: every link that merged two headlines of the corpus joins
// headlines sharing at least two words, counted here independently of Group's tokenizer
// (plainWords, sharedWords).
func TestGroupNeverLinksOnOneWord(t *testing.T) {
	days := loadGroupCorpus(t)
	links, later, chained := 0, 0, 0
	for _, hs := range days {
		g := story.Group(groupCorpusStories(hs), story.GroupOptions{})
		for _, l := range g.Links {
			i, j := l[0], l[1]
			links++
			if j > i {
				later++ // a lone story's second look, at the stories ranked after it
			}
			if n := sharedWords(hs[i].title, hs[j].title); n < 2 {
				t.Errorf("%q was linked to %q, which share %d word(s)", hs[i].title, hs[j].title, n)
			}
		}
		for _, members := range g.Groups {
			for a := range members {
				for b := a + 1; b < len(members); b++ {
					if sharedWords(hs[members[a]].title, hs[members[b]].title) < 2 {
						chained++
					}
				}
			}
		}
	}
	if links == 0 {
		t.Fatal("no headline was linked to another: the check checked nothing")
	}
	if later == 0 {
		t.Error("no lone story was linked to a story ranked after it: the second look is not checked here")
	}
	t.Logf("%d links checked (%d of lone stories to later ones); %d pairs in the same group share fewer than two words (joined through others)", links, later, chained)
}

var plainStopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the a an and or but of to in on at by for with from as is are was were be been it its
this that these those he she they we you his her their our your not no up out over into after before about than then
so if de la le les des du et en el los las y`) {
		plainStopWords[w] = true
	}
}

// plainWords are the words of a headline as a reader counts them: lower case, "U.S." as "us",
// possessives dropped, a few plain suffixes and a final e or doubled letter cut (pricing and
// price → pric, banned → ban), function words left out.
func plainWords(s string) []string {
	s = strings.NewReplacer(".", "", "'s", "", "’s", "", "'", "", "’", "").Replace(strings.ToLower(s))
	f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var out []string
	for _, w := range f {
		if len([]rune(w)) < 2 || plainStopWords[w] {
			continue
		}
		for _, suffix := range []string{"ing", "ed", "es", "s"} {
			if len(w) >= len(suffix)+3 && strings.HasSuffix(w, suffix) {
				w = strings.TrimSuffix(w, suffix)
				break
			}
		}
		if len(w) >= 4 && (w[len(w)-1] == w[len(w)-2] || w[len(w)-1] == 'e') { // banned → ban, price → pric
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return out
}

// sharedWords counts the distinct words two headlines have in common; words with the same
// first five letters count as one.
func sharedWords(a, b string) int {
	wb := plainWords(b)
	seen := map[string]bool{}
	n := 0
	for _, x := range plainWords(a) {
		if seen[x] {
			continue
		}
		seen[x] = true
		for _, y := range wb {
			if x == y || len(x) >= 5 && len(y) >= 5 && x[:5] == y[:5] {
				n++
				break
			}
		}
	}
	return n
}

// printGroupDisagreements logs false merges (a link between headlines of different reference
// stories) and misses (a headline left alone or put elsewhere while its best reference
// neighbour, by shared words, sits in another group).
func printGroupDisagreements(t *testing.T, hs []groupHeadline, g story.Grouping, n int) {
	shown := 0
	for i, j := range g.LinkedTo {
		if j >= 0 && hs[i].story != hs[j].story && shown < n {
			shown++
			t.Logf("  FALSE MERGE (%.2f) [%s] %s  ←→  [%s] %s", g.Similarity[i], hs[i].outlet, hs[i].title, hs[j].outlet, hs[j].title)
		}
	}
	groupOf := make([]int, len(hs))
	for k, m := range g.Groups {
		for _, i := range m {
			groupOf[i] = k
		}
	}
	shown = 0
	for i := range hs {
		if shown == n {
			break
		}
		best, bestN := -1, 1
		for j := range hs {
			if j != i && hs[j].story == hs[i].story && groupOf[j] != groupOf[i] {
				if k := sharedWords(hs[i].title, hs[j].title); k > bestN {
					best, bestN = j, k
				}
			}
		}
		if best >= 0 && i < best {
			shown++
			t.Logf("  MISS (%d words) [%s] %s  ←→  [%s] %s", bestN, hs[i].outlet, hs[i].title, hs[best].outlet, hs[best].title)
		}
	}
}
