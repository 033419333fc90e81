package eval

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// ChartWidth is the width of the chart WriteOut draws, in pixels.
const ChartWidth = chartW

// Chart geometry, in pixels.
const (
	chartW, chartH = 960, 540
	padL, padR     = 90, 30
	padT, padB     = 50, 60
)

// chartColors are the profiles' line colours, in the order the profiles were given.
var chartColors = []color.RGBA{
	{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255},
	{255, 127, 14, 255}, {23, 190, 207, 255}, {140, 86, 75, 255}, {127, 127, 127, 255},
}

// chartLine is one line of the chart: a value per step, and its colour.
type chartLine struct {
	vals []float64
	col  color.RGBA
}

// chartLines are the lines of a chart: each episode thin, each profile's mean thick.
type chartLines struct {
	thin, thick []chartLine
	legend      []string
	lo, hi      float64 // the values' range
}

// DrawCreditsChart writes a PNG of the score (credits for SpaceTraders) over steps: per
// profile, a thin line for each episode and a thick one for their mean.
func DrawCreditsChart(path string, rep Report, steps int) error {
	return drawChart(path, chartLinesOf(rep, steps), steps, "steps", scoreName(rep))
}

// drawChart writes a PNG of lines over x = 0..xMax, titled "yName over xName": the
// thin lines under the thick ones, and a legend in the thick lines' colours.
func drawChart(path string, lines chartLines, xMax int, xName, yName string) error {
	img := image.NewRGBA(image.Rect(0, 0, chartW, chartH))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	lo, hi, tick := axisRange(lines.lo, lines.hi)
	plotW, plotH := chartW-padL-padR, chartH-padT-padB
	x := func(s int) int { return padL + s*plotW/max(xMax, 1) }
	y := func(v float64) int { return padT + plotH - int((v-lo)/(hi-lo)*float64(plotH)) }
	drawAxes(img, xMax, lo, hi, tick, x, y, xName, yName)
	for _, l := range lines.thin {
		polyline(img, l.vals, x, y, l.col, 1)
	}
	for _, l := range lines.thick {
		polyline(img, l.vals, x, y, l.col, 3)
	}
	ink := color.RGBA{40, 40, 40, 255}
	for i, text := range lines.legend {
		col := chartColors[i%len(chartColors)]
		ly := padT + 14 + i*16
		fill(img, image.Rect(padL+12, ly-8, padL+28, ly-4), col)
		label(img, padL+34, ly, text, ink)
	}
	return writePNG(path, img)
}

// lighten is a profile's colour halfway to white, for its thin lines.
func lighten(col color.RGBA) color.RGBA {
	return color.RGBA{col.R/2 + 128, col.G/2 + 128, col.B/2 + 128, 255}
}

// chartLinesOf turns each episode into a value per step 0..steps, carried forward
// between observations, so that episodes can be averaged step by step.
func chartLinesOf(rep Report, steps int) chartLines {
	out := chartLines{lo: math.Inf(1), hi: math.Inf(-1)}
	for i, p := range rep.Profiles {
		col := chartColors[i%len(chartColors)]
		mean := make([]float64, steps+1)
		n := 0
		for _, e := range rep.Episodes {
			if e.Profile != p.Profile || e.Version != p.Version || len(e.credits) == 0 {
				continue
			}
			vals := make([]float64, steps+1)
			k, cur := 0, float64(e.credits[0].credits)
			for s := 0; s <= steps; s++ {
				for k < len(e.credits) && e.credits[k].step <= s {
					cur = float64(e.credits[k].credits)
					k++
				}
				vals[s] = cur
				mean[s] += cur
				out.lo, out.hi = math.Min(out.lo, cur), math.Max(out.hi, cur)
			}
			out.thin = append(out.thin, chartLine{vals, lighten(col)})
			n++
		}
		if n == 0 {
			continue
		}
		for s := range mean {
			mean[s] /= float64(n)
		}
		out.thick = append(out.thick, chartLine{mean, col})
		out.legend = append(out.legend, fmt.Sprintf("%s@%s (mean of %d)", p.Profile, p.Version, n))
	}
	return out
}

// axisRange widens lo..hi a little and rounds it to ticks of a round size.
func axisRange(lo, hi float64) (float64, float64, float64) {
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	if hi-lo < 1 {
		hi = lo + 1
	}
	span := hi - lo
	lo, hi = lo-span*0.05, hi+span*0.05
	tick := niceStep((hi - lo) / 6)
	return math.Floor(lo/tick) * tick, math.Ceil(hi/tick) * tick, tick
}

// drawAxes draws the grid, the axes, their labels and the title.
func drawAxes(img draw.Image, steps int, lo, hi, tick float64, x func(int) int, y func(float64) int, xName, name string) {
	plotW, plotH := chartW-padL-padR, chartH-padT-padB
	grid := color.RGBA{225, 225, 225, 255}
	ink := color.RGBA{40, 40, 40, 255}
	for v := lo; v <= hi+tick/2; v += tick {
		hline(img, padL, padL+plotW, y(v), grid)
		label(img, padL-8-textWidth(fmtCredits(v)), y(v)+4, fmtCredits(v), ink)
	}
	stepTick := int(niceStep(float64(steps) / 8))
	for s := 0; s <= steps; s += max(stepTick, 1) {
		vline(img, x(s), padT, padT+plotH, grid)
		t := fmt.Sprint(s)
		label(img, x(s)-textWidth(t)/2, padT+plotH+18, t, ink)
	}
	hline(img, padL, padL+plotW, padT+plotH, ink)
	vline(img, padL, padT, padT+plotH, ink)
	label(img, padL+plotW/2-textWidth(xName)/2, chartH-14, xName, ink)
	label(img, 10, padT-14, name, ink)
	label(img, padL, 24, "coplay eval: "+name+" over "+xName, ink)
}

// writePNG writes img to path.
func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// niceStep rounds a raw tick spacing up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// fmtCredits writes a tick value: 175000 as 175k, 1250000 as 1.25M.
func fmtCredits(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmt.Sprintf("%.4gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.4gk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func textWidth(s string) int { return font.MeasureString(basicfont.Face7x13, s).Round() }

func label(img draw.Image, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func fill(img draw.Image, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

func hline(img draw.Image, x0, x1, y int, c color.Color) { fill(img, image.Rect(x0, y, x1+1, y+1), c) }
func vline(img draw.Image, x, y0, y1 int, c color.Color) { fill(img, image.Rect(x, y0, x+1, y1+1), c) }

// polyline joins the points (s, vals[s]) with segments w pixels wide.
func polyline(img draw.Image, vals []float64, x func(int) int, y func(float64) int, c color.Color, w int) {
	for s := 1; s < len(vals); s++ {
		segment(img, x(s-1), y(vals[s-1]), x(s), y(vals[s]), c, w)
	}
}

// segment draws a line with Bresenham's algorithm, a w×w square per point.
func segment(img draw.Image, x0, y0, x1, y1 int, c color.Color, w int) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		fill(img, image.Rect(x0-w/2, y0-w/2, x0-w/2+w, y0-w/2+w), c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
