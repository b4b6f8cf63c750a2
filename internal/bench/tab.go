package bench

import (
	"context"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// The capture benchmark's few operations on its tab (a page without a
// script), done with chromedp here rather than exported by session for
// the benchmarks alone.

// browserVersion returns the browser's product string, e.g.
// "HeadlessChrome/156.0…".
func browserVersion(tab context.Context) (string, error) {
	v, err := chromedp.CallBrowser(tab, browser.GetVersion, cdp.Empty{})
	if err != nil {
		return "", err
	}
	return v.Product, nil
}

// setViewport sets the tab's viewport in CSS pixels and its scale factor.
func setViewport(tab context.Context, width, height int, scale float64) error {
	_, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(width), Height: int64(height), DeviceScaleFactor: scale,
	})
	return err
}

// navigate loads url in the tab and waits for it to load.
func navigate(tab context.Context, url string) error {
	return chromedp.Do(tab, chromedp.Navigate(url))
}

// evalNumber evaluates a JavaScript expression that yields a number.
func evalNumber(tab context.Context, expr string) (float64, error) {
	return chromedp.Run(tab, chromedp.Evaluate[float64](expr))
}
