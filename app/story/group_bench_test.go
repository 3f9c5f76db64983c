package story_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/story"
)

// groupDay synthesizes a day of n items from the corpus headlines: each headline comes back
// many times, from made-up outlets, with words dropped or moved and a lead made of other
// headlines of its story and unrelated filler, spread over 24 hours in a shuffled order.
func groupDay(tb testing.TB, n int) []story.Story {
	days := loadGroupCorpus(tb)
	var all []groupHeadline
	byStory := map[string][]string{}
	for _, d := range []string{"0", "1", "2"} {
		for _, h := range days[d] {
			all = append(all, h)
			byStory[h.story] = append(byStory[h.story], h.title)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	filler := strings.Fields("the company said on the day that officials expected more details later this week according to people familiar with the matter who asked not to be named")
	start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	out := make([]story.Story, n)
	for i := range out {
		h := all[rng.IntN(len(all))]
		words := strings.Fields(h.title)
		if len(words) > 4 && rng.IntN(2) == 0 {
			k := rng.IntN(len(words))
			words = append(words[:k], words[k+1:]...)
		}
		if len(words) > 3 && rng.IntN(3) == 0 {
			k := rng.IntN(len(words) - 1)
			words[k], words[k+1] = words[k+1], words[k]
		}
		siblings := byStory[h.story]
		var lead []string
		for range 2 {
			lead = append(lead, siblings[rng.IntN(len(siblings))]+".")
		}
		for range 20 {
			lead = append(lead, filler[rng.IntN(len(filler))])
		}
		out[i] = story.Story{
			Title:  strings.Join(words, " "),
			Lead:   strings.Join(lead, " ") + ".",
			At:     start.Add(time.Duration(rng.Int64N(int64(24 * time.Hour)))),
			Source: fmt.Sprintf("%s %d", h.outlet, rng.IntN(40)),
		}
	}
	return out
}

// BenchmarkGroup20000 groups a day of 20,000 items that are all coverage of the corpus
// stories, each headline about 16 times: the worst case for candidates (the briefing as a
// whole must be built in < 2 s).
func BenchmarkGroup20000(b *testing.B) {
	stories := groupDay(b, 20_000)
	b.ReportAllocs()
	var groups int
	cpu := processCPU()
	for b.Loop() {
		groups = len(story.Group(stories, story.GroupOptions{}).Groups)
	}
	b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(groups), "groups")
}

// groupMixedDay is a day of n items more like a real one: every corpus headline comes back
// about three times (perturbed, with a lead), and the rest are other news, made of corpus
// words drawn at their corpus frequencies, which share words only by chance.
func groupMixedDay(tb testing.TB, n int) []story.Story {
	copies := groupDay(tb, min(n, 3700))
	var vocab []string
	for _, st := range copies {
		vocab = append(vocab, strings.Fields(st.Title)...)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	sentence := func(k int) string {
		w := make([]string, k)
		for j := range w {
			w[j] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	out := append(make([]story.Story, 0, n), copies...)
	start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for len(out) < n {
		out = append(out, story.Story{
			Title:  sentence(6 + rng.IntN(6)),
			Lead:   sentence(12) + ". " + sentence(15) + ". " + sentence(10) + ".",
			At:     start.Add(time.Duration(rng.Int64N(int64(24 * time.Hour)))),
			Source: fmt.Sprintf("site %d", rng.IntN(500)),
		})
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// BenchmarkGroup20000Mixed groups a day of 20,000 items of which about 3,700 are coverage of
// the corpus stories.
func BenchmarkGroup20000Mixed(b *testing.B) {
	stories := groupMixedDay(b, 20_000)
	b.ReportAllocs()
	var groups int
	cpu := processCPU()
	for b.Loop() {
		groups = len(story.Group(stories, story.GroupOptions{}).Groups)
	}
	b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(groups), "groups")
}
