package telemetry

import "atcp/internal/errs"

// The codes of the adapter boundary, whatever the adapter.
const (
	// CodeAssetUnreachable: the adapter cannot reach the asset now (503):
	// the MQTT broker connection is down, the gateway is offline or its
	// measurements are stale, or a simulated battery's communications are
	// lost (an injected fault).
	CodeAssetUnreachable errs.Code = "asset_unreachable"
)
