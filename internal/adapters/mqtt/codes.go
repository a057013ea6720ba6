package mqtt

import "atcp/internal/errs"

// The codes of the MQTT adapter.
const (
	// CodeAssetUnreachable: the broker connection is down, the gateway is
	// offline or its measurements are stale (503).
	CodeAssetUnreachable errs.Code = "asset_unreachable"
	// CodeTopicPrefixTaken: another attached asset uses the topic prefix (409).
	CodeTopicPrefixTaken errs.Code = "adapter_topic_prefix_taken"
)
