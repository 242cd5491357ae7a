package runreport

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
)

// chromium finds Debian's headless browser. Without it the test is skipped on a developer's
// machine and fails in CI (CI=true), where .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const reason = "no chromium on PATH: report.html is not opened in a browser (apt-get install chromium)"
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI installs it in .ci/run, so this test must run there", reason)
	}
	t.Skip(reason)
	return ""
}

// runChromium runs the browser headless on a page with a timeout, returning its stdout.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	profile := t.TempDir()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + profile, "--virtual-time-budget=10000"}, args...)
	cmd := exec.Command(bin, all...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errOut.String())
		}
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("chromium %v did not finish in 3 minutes\n%s", args, errOut.String())
	}
	return out.Bytes()
}

// fixtureRun writes a complete run folder: the render package's fixture results (Table 1's
// shape, two sets, privacy rows), its tables and figures, a verdict.md with a summary and a
// table, and report.html. It returns the folder and the outputs listed.
func fixtureRun(t *testing.T) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run-1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	text := "name = \"fixture\"\ndescription = \"Table 1's shape <b>escaped</b> & checked.\"\nrepeats = 5\n[[sets]]\nname = \"20\"\nauthors = 20\n[[sets]]\nname = \"50\"\nauthors = 50\n" +
		"[[mechanisms]]\nname = \"none\"\n[[mechanisms]]\nname = \"emd\"\nepsilons = [30, 25, 20, 15, 10]\n" +
		"[[scorers]]\nname = \"sr-nn\"\n[[scorers]]\nname = \"sr-knn-topic\"\n[[scorers]]\nname = \"koppel11\"\n[[scorers]]\nname = \"fasttext\"\n" +
		"[report]\nmetric = \"correct\"\n[report.frontier]\nattack = \"koppel11\"\nutility = \"fasttext\"\n"
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "fixture.toml"), text)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := report.ReadRowsFile("../report/render/testdata/fixture-results.csv")
	if err != nil {
		t.Fatal(err)
	}
	verdict := "## Verdicts at matched privacy, set 20\n\nUtility kept where **koppel11** falls to each level.\n\n### koppel11 ≤ 0.1\n\n| mechanism | fasttext |\n|---|---:|\n| emd | 0.8 \\| 0.9 |\n\nSignificant:\n\n- emd keeps more than none\n"
	if err := os.WriteFile(filepath.Join(dir, "verdict.md"), []byte(verdict), 0o644); err != nil {
		t.Fatal(err)
	}
	written, err := WriteReport(dir, cfg, RunFacts{}, rows)
	if err != nil {
		t.Fatal(err)
	}
	man := rundir.NewManifest(cfg, 1)
	man.Status, man.Revision = rundir.StatusComplete, "0123abcd"
	man.Inputs = []rundir.Input{{Role: "corpus", Path: "npm:corpus@1", SHA256: "c74e8819", Bytes: 42}}
	man.PhaseSeconds = map[string]float64{"mechanisms": 12.5, "predict": 3}
	outputs := append(slices.Clone(written), "verdict.md", HTMLFile)
	if err := WriteHTML(dir, cfg, RunFacts{}, man, rows, outputs); err != nil {
		t.Fatal(err)
	}
	return dir, outputs
}

// report.html opens in a real headless browser: every section is in the DOM with its heading,
// every figure the run wrote is an <img> that loaded (naturalWidth > 0, checked by a copy of
// the page with a script appended: the page itself has none), the screenshot is not blank, and
// the provenance shows the manifest's inputs and phases. Mutants: a figure listed under a
// wrong name (its <img> does not load), a section left out of htmlSections' rendering, and
// the description not escaped (its <b> becomes markup) each fail.
func TestReportHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	dir, outputs := fixtureRun(t)
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page, []byte("<script")) || regexp.MustCompile(`(src|href)="(https?:)?//`).Match(page) {
		t.Error("report.html has a script or a network link")
	}
	dom := string(runChromium(t, bin, "--dump-dom", "file://"+filepath.Join(dir, HTMLFile)))
	var ids []string
	for _, m := range regexp.MustCompile(`<section id="([a-z]+)">\s*<h2>([^<]+)</h2>`).FindAllStringSubmatch(dom, -1) {
		ids = append(ids, m[1])
	}
	var want []string
	for _, s := range htmlSections {
		want = append(want, s.id)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("sections in the DOM: %v, want %v", ids, want)
	}
	for _, s := range []string{"Table 1's shape &lt;b&gt;escaped&lt;/b&gt; &amp; checked.", "<strong>koppel11</strong>", "<td>0.8 | 0.9</td>", "c74e8819", "12.5", "0123abcd", "<th class=\"num\">20: sr-nn</th>", "<h3>Verdicts at matched privacy, set 20</h3>", "<h4>koppel11 ≤ 0.1</h4>", "<li>emd keeps more than none</li>"} {
		if !strings.Contains(dom, s) {
			t.Errorf("the DOM lacks %q", s)
		}
	}
	if strings.Contains(dom, "<b>escaped</b>") {
		t.Error("the config's description became markup: the page does not escape it")
	}
	var pngs []string
	for _, o := range outputs {
		if strings.HasSuffix(o, ".png") {
			pngs = append(pngs, o)
		}
	}
	if len(pngs) < 4 {
		t.Fatalf("the fixture run wrote %d figures: %v", len(pngs), pngs)
	}
	imgs := regexp.MustCompile(`<img src="([^"]+)"`).FindAllStringSubmatch(dom, -1)
	var srcs []string
	for _, m := range imgs {
		srcs = append(srcs, m[1])
	}
	slices.Sort(srcs)
	slices.Sort(pngs)
	if !slices.Equal(srcs, pngs) {
		t.Errorf("images in the DOM %v, want every figure %v", srcs, pngs)
	}
	probe := strings.Replace(string(page), "</body>", `<script>window.addEventListener("load", function () {
  var out = [];
  document.querySelectorAll("img").forEach(function (i) { out.push(i.getAttribute("src") + "=" + (i.complete ? i.naturalWidth : -1)); });
  var p = document.createElement("pre"); p.id = "imgcheck"; p.textContent = out.join(" "); document.body.appendChild(p);
});</script></body>`, 1)
	if err := os.WriteFile(filepath.Join(dir, "probe.html"), []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	checked := regexp.MustCompile(`<pre id="imgcheck">([^<]*)</pre>`).FindStringSubmatch(string(runChromium(t, bin, "--dump-dom", "file://"+filepath.Join(dir, "probe.html"))))
	if checked == nil {
		t.Fatal("the image check did not run")
	}
	loaded := strings.Fields(checked[1])
	if len(loaded) != len(pngs) {
		t.Errorf("image check saw %d images, want %d", len(loaded), len(pngs))
	}
	for _, l := range loaded {
		if name, width, _ := strings.Cut(l, "="); width == "0" || width == "-1" {
			t.Errorf("%s did not load in the browser", name)
		}
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	runChromium(t, bin, "--window-size=1200,3000", "--screenshot="+shot, "file://"+filepath.Join(dir, HTMLFile))
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if share, colours := inked(img); share < 0.02 || colours < 20 {
		t.Errorf("the screenshot is nearly blank: %.3f of its pixels not white, %d colours", share, colours)
	} else {
		t.Logf("screenshot: %.3f of the pixels inked, %d colours", share, colours)
	}
}

// inked is the share of pixels of img that are not white and the number of distinct colours.
func inked(img image.Image) (float64, int) {
	b := img.Bounds()
	colours := map[[3]uint32]bool{}
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy()), len(colours)
}

// `dptext report` (Rereport) rewrites report.html from the folder alone and lists it among the
// manifest's outputs, so that the next run removes it. Mutant: Rereport without WriteHTML
// leaves the folder without the page.
func TestRereportWritesReportHTML(t *testing.T) {
	dir, _ := fixtureRun(t)
	results, err := os.ReadFile("../report/render/testdata/fixture-results.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), results, 0o644); err != nil {
		t.Fatal(err)
	}
	text := "name = \"fixture\"\nrepeats = 5\n[[sets]]\nname = \"20\"\nauthors = 20\n[[sets]]\nname = \"50\"\nauthors = 50\n" +
		"[[mechanisms]]\nname = \"none\"\n[[mechanisms]]\nname = \"emd\"\nepsilons = [30, 25, 20, 15, 10]\n" +
		"[[scorers]]\nname = \"sr-nn\"\n[[scorers]]\nname = \"sr-knn-topic\"\n[[scorers]]\nname = \"koppel11\"\n[[scorers]]\nname = \"fasttext\"\n"
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "fixture.toml"), text)
	if err != nil {
		t.Fatal(err)
	}
	man := rundir.NewManifest(cfg, 1)
	man.Status = rundir.StatusComplete
	if err := man.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, HTMLFile)); err != nil {
		t.Fatal(err)
	}
	if err := Rereport(dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil || !bytes.Contains(page, []byte(`<section id="provenance">`)) || !bytes.Contains(page, []byte(`<img src="accuracy-20.png"`)) {
		t.Fatalf("report.html after Rereport: %v\n%.300s", err, page)
	}
	back, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(back.Outputs, HTMLFile) {
		t.Errorf("the manifest's outputs %v do not list %s", back.Outputs, HTMLFile)
	}
}
