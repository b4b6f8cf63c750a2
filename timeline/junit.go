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
	all := junitSuites{Name: "clapper", Tests: suite.Tests, Failures: suite.Failures, Time: suite.Time, Suites: []junitSuite{suite}}
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

func secs(t Time) string { return fmt.Sprintf("%.3f", t.Seconds()) }
