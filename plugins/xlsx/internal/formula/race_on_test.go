//go:build race

package formula

// raceDetector is true in a -race build: the LibreOffice comparison runs
// without it (make test runs it on its own), as the detector makes its
// 97,000 formulas over 485 workbooks take about a minute.
const raceDetector = true
