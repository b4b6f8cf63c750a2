package session

import (
	"context"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// These small operations on a tab context (from Browser.NewTab) serve
// tools built on session, such as benchmarks, that need a page without a
// script.

// Version returns the browser's product string, e.g. "Chrome/156.0…".
func Version(tab context.Context) (string, error) {
	v, err := chromedp.CallBrowser(tab, browser.GetVersion, cdp.Empty{})
	if err != nil {
		return "", err
	}
	return v.Product, nil
}

// SetViewport sets the tab's viewport in CSS pixels and its scale factor.
func SetViewport(tab context.Context, width, height int, scale float64) error {
	_, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(width), Height: int64(height), DeviceScaleFactor: scale,
	})
	return err
}

// Navigate loads url in the tab and waits for it to load.
func Navigate(tab context.Context, url string) error {
	return chromedp.Do(tab, chromedp.Navigate(url))
}

// EvalNumber evaluates a JavaScript expression that yields a number.
func EvalNumber(tab context.Context, expr string) (float64, error) {
	return chromedp.Run(tab, chromedp.Evaluate[float64](expr))
}
