// Command storylinks learns app/story's link model: the probability that two headlines tell one
// event (a logistic regression over the features story.LinkPairs gives a candidate pair), and
// the linkage threshold at which groups stop merging. It reads the UCI News Aggregator
// headlines (Gasparetti 2016, CC BY 4.0: date, timestamp, category, story id, outlet, headline;
// the whole UCI News Aggregator file, uci-news.tsv.gz, named by -corpus) and cuts each day as the repository's evaluation
// days are cut: the dozen busiest outlets of the day, in the order of their timestamps.
//
// Days are split, never pairs: the repository's development and held-out days are left out
// (never trained on; the development days only check that a setting keeps them at their
// floors). The others fall in three folds (every third day in date order): each fold is
// grouped with weights fitted on the other two, for every setting of Alpha and the
// thresholds, and the setting chosen is the best mean B-cubed F1 over all days with a mean
// pairwise precision of at least -precision and a tenth-percentile day of at least -lowday
// (the test holds every day to a floor). The weights shipped are fitted on all the days.
//
// The reference's story ids come from crawls: all headlines of one id were crawled within two
// minutes, and the same event crawled again hours later got another id. Time is therefore no
// feature (it would learn the crawler, not the news), and a pair of different ids crawled more
// than -negwithin apart is left out of training: it may well be one event.
//
//	go run ./scripts/storylinks -corpus PATH/uci-news.tsv.gz -out app/story/linkmodel.go
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/morningdeck/morningdeck/app/story"
)

// The repository's development days (testdata/corpus/stories/uci-dev.tsv) and held-out days
// (uci-heldout.tsv): never read.
var leftOut = map[string]bool{
	"2014-03-11": true, "2014-03-22": true, "2014-04-01": true,
	"2014-05-08": true, "2014-06-18": true, "2014-08-01": true,
}

type headline struct {
	at            time.Time
	story, outlet string
	title         string
}

func main() {
	corpus := flag.String("corpus", "", "the UCI News Aggregator headlines (gzipped TSV)")
	out := flag.String("out", "", "write the model as Go source here (default: only report)")
	outlets := flag.Int("outlets", 12, "the busiest outlets of a day kept")
	minDay := flag.Int("minday", 150, "days with fewer headlines (after the cut) are left out")
	negWithin := flag.Duration("negwithin", 0, "pairs of different stories crawled further apart than this are not trained on (0: all are)")
	l2 := flag.Float64("l2", 1, "L2 penalty on the weights (not the bias)")
	precision := flag.Float64("precision", 0.92, "the least mean pairwise precision on the tuning days (the target on unseen days is 0.90: the margin is for the day-to-day spread)")
	verbose := flag.Bool("v", false, "print every setting tried")
	lowDay := flag.Float64("lowday", 0.85, "the least pairwise precision of the tenth-percentile day (the test holds each day to a floor, not only the mean)")
	minProb := flag.Float64("minprob", 0.05, "pairs less likely than this are not weighed")
	devPath := flag.String("dev", "testdata/corpus/stories/uci-dev.tsv", "the repository's development days: a setting must keep them at their floors (TestGroupOnSameStoryHeadlines); empty: no check")
	drop := flag.String("drop", "", "comma-separated features left out (their weight 0), to measure what each brings")
	flag.Parse()

	days, err := readDays(*corpus, *outlets, *minDay)
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for d := range days {
		names = append(names, d)
	}
	slices.Sort(names)
	var train, tune []string
	for k, d := range names {
		if k%3 == 2 {
			tune = append(tune, d)
		} else {
			train = append(train, d)
		}
	}
	fmt.Fprintf(os.Stderr, "%d days: %d training, %d tuning\n", len(names), len(train), len(tune))

	dropped := map[int]bool{}
	for _, f := range strings.Split(*drop, ",") {
		if f == "" {
			continue
		}
		k := slices.Index(story.LinkFeatureNames[:], f)
		if k < 1 {
			log.Fatalf("-drop: no feature %q", f)
		}
		dropped[k] = true
	}

	var dev map[string][]headline
	var devNames []string
	if *devPath != "" {
		if dev, err = readDevDays(*devPath); err != nil {
			log.Fatal(err)
		}
		for d := range dev {
			devNames = append(devNames, d)
		}
		slices.Sort(devNames)
	}
	// keepsFloors says whether m keeps each development day at its floor.
	keepsFloors := func(m *story.LinkModel) bool {
		for _, d := range devNames {
			s := mean(evaluateDays(dev, []string{d}, m))
			if f := devFloors[d]; s.pairP < f[0] || s.b3F < f[1] {
				return false
			}
		}
		return true
	}

	// Three folds of days: each fold's days are grouped with weights fitted on the other two
	// folds, so that every setting is judged on all days, none of them seen in its fitting.
	fold := func(k int) int { return k % 3 }
	type setting struct{ alpha, threshold, strong float64 }
	var settings []setting
	strongs, alphas, tFrom, tTo := []float64{0.05, 0.1, 0.2}, []float64{1}, 0.2, 0.8
	for _, strong := range strongs {
		for _, alpha := range alphas {
			for t := tFrom; t <= tTo+0.001; t += 0.025 {
				settings = append(settings, setting{alpha, t, strong})
			}
		}
	}
	perDay := make([][]scores, len(settings)) // by setting, by day (in names' order)
	for i := range perDay {
		perDay[i] = make([]scores, len(names))
	}
	for f := range 3 {
		var train, held []string
		var heldAt []int
		for k, d := range names {
			if fold(k) == f {
				held, heldAt = append(held, d), append(heldAt, k)
			} else {
				train = append(train, d)
			}
		}
		xs, ys, pos := pairs(days, train, *negWithin, dropped)
		w := fitLogistic(xs, ys, *l2)
		fmt.Fprintf(os.Stderr, "fold %d: %d days fitted (%d pairs, %d of one story), %d days grouped\n", f, len(train), len(xs), pos, len(held))
		for i, st := range settings {
			m := &story.LinkModel{Weights: w, Threshold: st.threshold, Alpha: st.alpha, MinProb: *minProb, StrongThreshold: st.strong}
			for k, s := range evaluateDays(days, held, m) {
				perDay[i][heldAt[k]] = s
			}
		}
	}
	xs, ys, pos := pairs(days, names, *negWithin, dropped)
	w := fitLogistic(xs, ys, *l2)
	fmt.Fprintf(os.Stderr, "all %d days: %d pairs, %d of one story\n", len(names), len(xs), pos)
	for k, name := range story.LinkFeatureNames {
		fmt.Fprintf(os.Stderr, "  %-11s %+.4f\n", name, w[k])
	}
	best := -1
	var bestS scores
	for i, st := range settings {
		s := mean(perDay[i])
		if *verbose {
			fmt.Fprintf(os.Stderr, "  strong %.3f alpha %.2f threshold %.3f: %s; tenth-percentile day P %.3f\n", st.strong, st.alpha, st.threshold, s, tenthPercentile(perDay[i]))
		}
		if s.pairP < *precision || best >= 0 && s.b3F <= bestS.b3F || tenthPercentile(perDay[i]) < *lowDay {
			continue
		}
		m := &story.LinkModel{Weights: w, Threshold: st.threshold, Alpha: st.alpha, MinProb: *minProb, StrongThreshold: st.strong}
		if keepsFloors(m) {
			best, bestS = i, s
		}
	}
	if best < 0 {
		log.Fatalf("no setting keeps the development days at their floors and reaches a pairwise precision of %.2f", *precision)
	}
	st := settings[best]
	var ps []float64
	for _, s := range perDay[best] {
		ps = append(ps, s.pairP)
	}
	slices.Sort(ps)
	fmt.Fprintf(os.Stderr, "chosen: strong %.3f alpha %.2f threshold %.3f: %d days, each grouped by the weights of the other folds: %s; pairwise precision by day: lowest %.3f, 10th percentile %.3f, median %.3f\n",
		st.strong, st.alpha, st.threshold, len(names), bestS, ps[0], ps[len(ps)/10], ps[len(ps)/2])
	m := &story.LinkModel{Weights: w, Threshold: st.threshold, Alpha: st.alpha, MinProb: *minProb, StrongThreshold: st.strong}
	fmt.Fprintf(os.Stderr, "all days with the final weights (fitted on them): %s\n", mean(evaluateDays(days, names, m)))
	for _, d := range devNames {
		fmt.Fprintf(os.Stderr, "development day %s: %s\n", d, mean(evaluateDays(dev, []string{d}, m)))
	}
	if *out != "" {
		if err := writeModel(*out, m, len(names), len(xs), pos, bestS, *negWithin); err != nil {
			log.Fatal(err)
		}
	}
}

// pairs are the candidate pairs of the days, their features and whether they are one story.
func pairs(days map[string][]headline, names []string, negWithin time.Duration, dropped map[int]bool) ([][story.NumLinkFeatures]float64, []float64, int) {
	var xs [][story.NumLinkFeatures]float64
	var ys []float64
	pos := 0
	for _, d := range names {
		hs := days[d]
		for _, p := range story.LinkPairs(stories(hs), story.GroupOptions{}) {
			a, b := hs[p.I], hs[p.J]
			same := a.story == b.story
			if !same && negWithin > 0 && absDur(a.at.Sub(b.at)) > negWithin {
				continue
			}
			x := p.Features
			for k := range dropped {
				x[k] = 0
			}
			xs = append(xs, x)
			y := 0.0
			if same {
				y = 1
				pos++
			}
			ys = append(ys, y)
		}
	}
	return xs, ys, pos
}

// devFloors are TestGroupOnSameStoryHeadlines's floors of the development days (pairwise
// precision, B-cubed F1).
var devFloors = map[string][2]float64{"0": {0.99, 0.81}, "1": {0.90, 0.82}, "2": {0.66, 0.80}}

// readDevDays reads testdata/corpus/stories/uci-dev.tsv (day, story, outlet, timestamp,
// category, headline), each day in the order of its timestamps.
func readDevDays(path string) (map[string][]headline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	days := map[string][]headline{}
	for _, line := range strings.Split(string(b), "\n") {
		col := strings.Split(line, "\t")
		if strings.HasPrefix(line, "#") || len(col) != 6 {
			continue
		}
		ms, err := strconv.ParseInt(col[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		days[col[0]] = append(days[col[0]], headline{at: time.UnixMilli(ms).UTC(), story: col[1], outlet: col[2], title: col[5]})
	}
	for _, hs := range days {
		slices.SortStableFunc(hs, func(a, b headline) int { return a.at.Compare(b.at) })
	}
	return days, nil
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func stories(hs []headline) []story.Story {
	out := make([]story.Story, len(hs))
	for i, h := range hs {
		out[i] = story.Story{Title: h.title, At: h.at, Source: h.outlet}
	}
	return out
}

func readDays(path string, outlets, minDay int) (map[string][]headline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	byDay := map[string][]headline{}
	r := bufio.NewReaderSize(z, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line != "" && !strings.HasPrefix(line, "#") {
			col := strings.Split(line, "\t")
			if len(col) == 6 && !leftOut[col[0]] {
				ms, perr := strconv.ParseInt(col[1], 10, 64)
				if perr == nil {
					byDay[col[0]] = append(byDay[col[0]], headline{at: time.UnixMilli(ms).UTC(), story: col[3], outlet: col[4], title: col[5]})
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	days := map[string][]headline{}
	for d, hs := range byDay {
		count := map[string]int{}
		for _, h := range hs {
			count[h.outlet]++
		}
		var os []string
		for o := range count {
			os = append(os, o)
		}
		slices.SortFunc(os, func(a, b string) int {
			if count[a] != count[b] {
				return count[b] - count[a]
			}
			return strings.Compare(a, b)
		})
		keep := map[string]bool{}
		for _, o := range os[:min(outlets, len(os))] {
			keep[o] = true
		}
		var kept []headline
		for _, h := range hs {
			if keep[h.outlet] {
				kept = append(kept, h)
			}
		}
		if len(kept) < minDay {
			continue
		}
		slices.SortStableFunc(kept, func(a, b headline) int { return a.at.Compare(b.at) })
		days[d] = kept
	}
	return days, nil
}

// fitLogistic fits a logistic regression by Newton's method (the weights but the first, the
// bias, under an L2 penalty l2).
func fitLogistic(xs [][story.NumLinkFeatures]float64, ys []float64, l2 float64) [story.NumLinkFeatures]float64 {
	const k = story.NumLinkFeatures
	var w [k]float64
	for iter := 0; iter < 50; iter++ {
		var g [k]float64
		var h [k][k]float64
		for n, x := range xs {
			var z float64
			for a := range k {
				z += w[a] * x[a]
			}
			p := 1 / (1 + math.Exp(-z))
			r := p * (1 - p)
			for a := range k {
				g[a] += (p - ys[n]) * x[a]
				for b := range k {
					h[a][b] += r * x[a] * x[b]
				}
			}
		}
		for a := 1; a < k; a++ {
			g[a] += l2 * w[a]
			h[a][a] += l2
		}
		for a := range k {
			h[a][a] += 1e-9
		}
		step := solve(h, g)
		var size float64
		for a := range k {
			w[a] -= step[a]
			size = max(size, math.Abs(step[a]))
		}
		if size < 1e-7 {
			break
		}
	}
	return w
}

// solve solves h·x = g by Gaussian elimination with partial pivoting.
func solve(h [story.NumLinkFeatures][story.NumLinkFeatures]float64, g [story.NumLinkFeatures]float64) [story.NumLinkFeatures]float64 {
	const k = story.NumLinkFeatures
	for c := range k {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(h[r][c]) > math.Abs(h[p][c]) {
				p = r
			}
		}
		h[c], h[p] = h[p], h[c]
		g[c], g[p] = g[p], g[c]
		if h[c][c] == 0 {
			continue
		}
		for r := c + 1; r < k; r++ {
			f := h[r][c] / h[c][c]
			for cc := c; cc < k; cc++ {
				h[r][cc] -= f * h[c][cc]
			}
			g[r] -= f * g[c]
		}
	}
	var x [k]float64
	for c := k - 1; c >= 0; c-- {
		s := g[c]
		for cc := c + 1; cc < k; cc++ {
			s -= h[c][cc] * x[cc]
		}
		if h[c][c] != 0 {
			x[c] = s / h[c][c]
		}
	}
	return x
}

type scores struct{ pairP, pairR, b3F, big float64 }

func (s scores) String() string {
	return fmt.Sprintf("P %.3f R %.3f B3F1 %.3f big-story recall %.3f", s.pairP, s.pairR, s.b3F, s.big)
}

// evaluateDays groups each day and scores it as the repository's test does.
func evaluateDays(days map[string][]headline, names []string, m *story.LinkModel) []scores {
	per := make([]scores, len(names))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for k := w; k < len(names); k += 2 {
				hs := days[names[k]]
				g := story.Group(stories(hs), story.GroupOptions{Model: m})
				per[k] = score(hs, g.Groups)
			}
		})
	}
	wg.Wait()
	return per
}

// mean averages scores over days, in their order (the same figures every run).
func mean(per []scores) scores {
	var sum scores
	for _, s := range per {
		sum.pairP += s.pairP
		sum.pairR += s.pairR
		sum.b3F += s.b3F
		sum.big += s.big
	}
	n := float64(len(per))
	return scores{sum.pairP / n, sum.pairR / n, sum.b3F / n, sum.big / n}
}

// score is pairwise precision and recall, B-cubed F1 and the pairwise recall within stories of
// 16 headlines or more, as TestGroupOnSameStoryHeadlines measures them.
func score(hs []headline, groups [][]int) scores {
	pred := make([]int, len(hs))
	for g, members := range groups {
		for _, m := range members {
			pred[m] = g
		}
	}
	type cell struct {
		g int
		s string
	}
	predSize, goldSize, both := map[int]int{}, map[string]int{}, map[cell]int{}
	for i, h := range hs {
		predSize[pred[i]]++
		goldSize[h.story]++
		both[cell{pred[i], h.story}]++
	}
	pairs := func(c int) float64 { return float64(c * (c - 1) / 2) }
	var tp, pp, gp float64
	for _, c := range both {
		tp += pairs(c)
	}
	for _, c := range predSize {
		pp += pairs(c)
	}
	for _, c := range goldSize {
		gp += pairs(c)
	}
	var s scores
	s.pairP, s.pairR = ratio(tp, pp), ratio(tp, gp)
	var b3P, b3R float64
	for i, h := range hs {
		c := float64(both[cell{pred[i], h.story}])
		b3P += c / float64(predSize[pred[i]])
		b3R += c / float64(goldSize[h.story])
	}
	b3P /= float64(len(hs))
	b3R /= float64(len(hs))
	if b3P+b3R > 0 {
		s.b3F = 2 * b3P * b3R / (b3P + b3R)
	}
	var bigPairs, bigFound float64
	for c, k := range both {
		if goldSize[c.s] >= 16 {
			bigFound += pairs(k)
		}
	}
	for st, k := range goldSize {
		if k >= 16 {
			bigPairs += pairs(k)
		}
		_ = st
	}
	s.big = ratio(bigFound, bigPairs)
	return s
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 1
	}
	return a / b
}

func writeModel(path string, m *story.LinkModel, nDays, pairs, pos int, cv scores, negWithin time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by scripts/storylinks; DO NOT EDIT.\n\npackage story\n\n")
	fmt.Fprintf(&b, "// defaultLinkModel was learned from %d days of the UCI News Aggregator data set (Gasparetti\n", nDays)
	fmt.Fprintf(&b, "// 2016, CC BY 4.0; testdata/corpus/stories/LICENSE), the dozen busiest outlets of each, leaving\n")
	fmt.Fprintf(&b, "// out the repository's development and held-out days: the weights on all of them (%d candidate\n", pairs)
	fmt.Fprintf(&b, "// pairs, %d of one story; %s); Alpha and the thresholds by three folds of days, each\n", pos, negNote(negWithin))
	fmt.Fprintf(&b, "// grouped with the weights of the other two (%s).\n", cv)
	fmt.Fprintf(&b, "var defaultLinkModel = LinkModel{\n\tWeights: [NumLinkFeatures]float64{\n")
	for k, name := range story.LinkFeatureNames {
		fmt.Fprintf(&b, "\t\t%.4f, // %s\n", m.Weights[k], name)
	}
	fmt.Fprintf(&b, "\t},\n\tThreshold: %.3f,\n\tAlpha:     %.2f,\n\tMinProb:   %.2f,\n\tStrongThreshold: %.3f,\n}\n", m.Threshold, m.Alpha, m.MinProb, m.StrongThreshold)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func negNote(d time.Duration) string {
	if d == 0 {
		return "all pairs"
	}
	return fmt.Sprintf("pairs of two stories crawled more than %v apart left out", d)
}

// tenthPercentile is the pairwise precision of the day at the tenth percentile.
func tenthPercentile(per []scores) float64 {
	var ps []float64
	for _, s := range per {
		ps = append(ps, s.pairP)
	}
	slices.Sort(ps)
	return ps[len(ps)/10]
}
