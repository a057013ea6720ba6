package app

import (
	"fmt"

	"atcp/internal/config"
	"atcp/internal/objstore"
	"atcp/internal/objstore/embedded"
	"atcp/internal/objstore/s3"
)

// openObjects opens the object store of uploaded files
// (docs/onboarding.md section 6). The embedded one also serves its
// presigned URLs on the server's mux, outside /v1 and the OpenAPI
// document; its URLs expire on the security clock, and it follows the
// rotations of its key file (atcp rotate-object-key) without a restart.
func (a *App) openObjects() (objstore.Store, error) {
	if a.Config.ObjectStore == config.ObjectStoreS3 {
		s, err := s3.New(a.Config.S3, a.Security)
		if err != nil {
			return nil, fmt.Errorf("object store: %w", err)
		}
		return s, nil
	}
	s, err := embedded.Open(a.Config.DataDir, a.baseURL, a.Security, embedded.WithKeyLog(a.Log))
	if err != nil {
		return nil, fmt.Errorf("object store: %w", err)
	}
	a.closeObjects = s.Close
	a.Server.Mux.Handle(embedded.RoutePrefix, s.Handler())
	return s, nil
}
