package story_test

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app/story"
)

func TestZZFarDiff(t *testing.T) {
	days := loadGroupCorpus(t)
	var names []string
	for d := range days {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		hs := days[d]
		p := story.GroupTuning["far"]
		saved := *p
		*p = 0
		before := story.Group(groupCorpusStories(hs), story.GroupOptions{})
		*p = saved
		var restore []func()
		for _, spec := range strings.Fields(os.Getenv("ZZSET")) {
			name, value, _ := strings.Cut(spec, "=")
			v, _ := strconv.ParseFloat(value, 64)
			q := story.GroupTuning[name]
			old := *q
			*q = v
			restore = append(restore, func() { *q = old })
		}
		after := story.Group(groupCorpusStories(hs), story.GroupOptions{})
		for _, f := range restore {
			f()
		}
		gb := make([]int, len(hs))
		ga := make([]int, len(hs))
		for k, m := range before.Groups {
			for _, i := range m {
				gb[i] = k
			}
		}
		for k, m := range after.Groups {
			for _, i := range m {
				ga[i] = k
			}
		}
		type key struct{ b, a int }
		moved := map[key][]int{}
		for i := range hs {
			if len(before.Groups[gb[i]]) != len(after.Groups[ga[i]]) {
				moved[key{gb[i], ga[i]}] = append(moved[key{gb[i], ga[i]}], i)
			}
		}
		var c [4]int
		for i := range hs {
			for j := i + 1; j < len(hs); j++ {
				tb, ta := gb[i] == gb[j], ga[i] == ga[j]
				same := hs[i].story == hs[j].story
				switch {
				case tb && !ta && same:
					c[0]++
				case tb && !ta:
					c[1]++
				case !tb && ta && same:
					c[2]++
				case !tb && ta:
					c[3]++
				}
			}
		}
		t.Logf("day %s: pairs split: %d same-id, %d different-id; pairs joined: %d same-id, %d different-id", d, c[0], c[1], c[2], c[3])
		var keys []key
		for k := range moved {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(a, b int) bool { return keys[a].b < keys[b].b || keys[a].b == keys[b].b && keys[a].a < keys[b].a })
		for _, k := range keys {
			t.Logf(" before-group %d (%d) -> after-group %d (%d):", k.b, len(before.Groups[k.b]), k.a, len(after.Groups[k.a]))
			for _, i := range moved[k] {
				t.Logf("    %s %s [%s] %s", hs[i].at.Format("15:04"), hs[i].story[:6], hs[i].outlet, hs[i].title)
			}
		}
	}
}
