package views

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"sync"
)

// The app's icon as PNG, 192 and 512 pixels square, for the web app manifest (browsers that
// install an app want bitmaps of those sizes): static/icon.svg drawn here, at startup's first
// ask, by sampling each pixel 4×4 times: a blue rounded square, three white lines with round
// ends, a yellow dot.

var appIcons = map[int]func() []byte{192: sync.OnceValue(func() []byte { return drawAppIcon(192) }), 512: sync.OnceValue(func() []byte { return drawAppIcon(512) })}

func drawAppIcon(size int) []byte {
	const n = 4 // samples a side
	blue, white, yellow := [3]float64{0x1f, 0x5f, 0xa8}, [3]float64{0xff, 0xff, 0xff}, [3]float64{0xf4, 0xb7, 0x40}
	lines := [][4]float64{{8, 22, 24, 22}, {8, 17, 24, 17}, {8, 12, 18, 12}}
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	scale := 32 / float64(size)
	for py := range size {
		for px := range size {
			var r, g, b, a float64
			for sy := range n {
				for sx := range n {
					x, y := (float64(px)+(float64(sx)+0.5)/n)*scale, (float64(py)+(float64(sy)+0.5)/n)*scale
					// The rounded square: 32 wide, corners of radius 7.
					cx, cy := math.Max(7, math.Min(25, x)), math.Max(7, math.Min(25, y))
					if math.Hypot(x-cx, y-cy) > 7 {
						continue
					}
					c := blue
					for _, l := range lines {
						if segmentDistance(x, y, l) <= 1.3 {
							c = white
						}
					}
					if math.Hypot(x-23, y-11) <= 3 {
						c = yellow
					}
					r, g, b, a = r+c[0], g+c[1], b+c[2], a+1
				}
			}
			if a > 0 {
				img.SetNRGBA(px, py, color.NRGBA{uint8(r / a), uint8(g / a), uint8(b / a), uint8(a / (n * n) * 255)})
			}
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}

// segmentDistance is the distance from (x, y) to the segment l (x1, y1, x2, y2).
func segmentDistance(x, y float64, l [4]float64) float64 {
	dx, dy := l[2]-l[0], l[3]-l[1]
	t := math.Max(0, math.Min(1, ((x-l[0])*dx+(y-l[1])*dy)/(dx*dx+dy*dy)))
	return math.Hypot(x-(l[0]+t*dx), y-(l[1]+t*dy))
}

func (s *Server) appIcon(size int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = w.Write(appIcons[size]())
	}
}
