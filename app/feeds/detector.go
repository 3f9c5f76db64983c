package feeds

import (
	"context"
	"errors"

	"github.com/morningdeck/morningdeck/app"
)

// Detector adapts a Fetcher to app.Detector.
type Detector struct{ Fetcher *Fetcher }

var _ app.Detector = Detector{}

// Detect finds out what raw is; a failure is an app.EINVALID error with a readable message.
func (d Detector) Detect(ctx context.Context, raw string) (*app.Detection, error) {
	r, err := d.Fetcher.Detect(ctx, raw)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			return nil, app.Errorf(app.EINVALID, "Could not read %s: %s", raw, fe.Message)
		}
		return nil, err
	}
	return r, nil
}
