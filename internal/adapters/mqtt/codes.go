package mqtt

import "atcp/internal/errs"

// The codes of the MQTT adapter. An unreachable asset is
// telemetry.CodeAssetUnreachable.
const (
	// CodeTopicPrefixTaken: another attached asset uses the topic prefix (409).
	CodeTopicPrefixTaken errs.Code = "adapter_topic_prefix_taken"
)
