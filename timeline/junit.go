package timeline

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit renders a timeline as JUnit XML for CI systems: one test case per
// expect step and per failing step. A failed optional step does not fail
// its case.
func JUnit(t *Timeline) ([]byte, error) {
	return JUnitAll([]JUnitRun{{Timeline: t}})
}

// JUnitRun is one run of a suite, for JUnitAll: its timeline, or, for a
// run that stopped before it filmed anything, its script's name and file;
// Error is why the run failed when no step says it.
type JUnitRun struct {
	Name, File string
	Timeline   *Timeline
	Error      string
}

// JUnitAll renders runs as one JUnit file: a test suite per run, with a
// test case per expect step and per failing step (JUnit); a run without a
// timeline is a suite of one failed case, its error.
func JUnitAll(runs []JUnitRun) ([]byte, error) {
	all := junitSuites{Name: "clapper"}
	var total Time
	for _, r := range runs {
		suite := junitSuiteOf(r)
		if r.Timeline != nil {
			total += r.Timeline.End - r.Timeline.Start
		}
		all.Tests += suite.Tests
		all.Failures += suite.Failures
		all.Suites = append(all.Suites, suite)
	}
	all.Time = secs(total)
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

func junitSuiteOf(r JUnitRun) junitSuite {
	t := r.Timeline
	if t == nil {
		c := junitCase{Name: "run", Classname: r.Name, File: filepath.ToSlash(r.File), Time: secs(0),
			Failure: &junitFailure{Message: r.Error, Type: "error", Text: r.File + ": " + r.Error}}
		return junitSuite{Name: r.Name, Tests: 1, Failures: 1, Time: secs(0), Cases: []junitCase{c}}
	}
	suite := junitSuite{Name: t.Name, Time: secs(t.End - t.Start)}
	for _, st := range t.Steps {
		failed := st.Outcome != OutcomeOK && !st.Optional
		if !st.Traits.Expectation && !failed {
			continue
		}
		name := fmt.Sprintf("line %d: %s", st.Line, st.Kind)
		if st.Target != "" {
			name += " " + st.Target
		}
		if st.Label != "" {
			name += " (" + st.Label + ")"
		}
		c := junitCase{Name: name, Classname: t.Name, File: filepath.ToSlash(st.File), Line: st.Line, Time: secs(st.End - st.Start)}
		if failed {
			c.Failure = &junitFailure{Message: st.Error, Type: string(st.Outcome), Text: fmt.Sprintf("%s:%d:%d: %s", st.File, st.Line, st.Col, st.Error)}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
	}
	if r.Error != "" && suite.Failures == 0 {
		// The run failed after its steps (its capture, its video): said
		// as a case of its own, so the suite does not read as passed.
		suite.Cases = append(suite.Cases, junitCase{Name: "run", Classname: t.Name, File: filepath.ToSlash(r.File), Time: secs(0),
			Failure: &junitFailure{Message: r.Error, Type: "error", Text: r.File + ": " + r.Error}})
		suite.Tests++
		suite.Failures++
	}
	return suite
}

func secs(t Time) string { return fmt.Sprintf("%.3f", t.Seconds()) }
