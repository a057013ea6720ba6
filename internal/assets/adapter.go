package assets

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"atcp/internal/errs"
)

// AdapterName names the adapter through which the platform talks to an
// asset; this file is the one place adapters are named. It is an alias of
// string so that adapter registries keyed by name and Asset.Adapter compare
// without conversions.
type AdapterName = string

// The adapters of an asset.
const (
	// AdapterSimulator steers the built-in battery simulator (the default).
	AdapterSimulator AdapterName = "simulator"
	// AdapterMQTT steers an edge gateway over the operator's MQTT broker
	// under the asset's AdapterTopicPrefix.
	AdapterMQTT AdapterName = "mqtt"
)

// Adapters lists every adapter name.
var Adapters = []AdapterName{AdapterSimulator, AdapterMQTT}

// ValidAdapter reports whether name is one of Adapters.
func ValidAdapter(name string) bool { return slices.Contains(Adapters, name) }

// MaxTopicPrefixLength is the limit of adapter_topic_prefix in bytes (MQTT
// counts topic names in bytes); the longest topic under it,
// <prefix>/measurements, stays far below MQTT's 65,535.
const MaxTopicPrefixLength = 200

// DefaultTopicPrefix is the adapter_topic_prefix of an asset that sets
// none: atcp/<asset_id>. An asset id never holds '/', '+', '#' or '$', so
// the default is always a valid prefix.
func DefaultTopicPrefix(assetID string) string { return "atcp/" + assetID }

// CheckTopicPrefix reports why s is not a valid MQTT topic name prefix
// under which a gateway's topics (<prefix>/command, ...) are built, or ""
// when it is.
func CheckTopicPrefix(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case len(s) > MaxTopicPrefixLength:
		return fmt.Sprintf("must be at most %d bytes", MaxTopicPrefixLength)
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case strings.ContainsFunc(s, unicode.IsControl):
		// NUL is forbidden by MQTT; the other control characters are
		// discouraged by it and never meant.
		return "must not contain control characters"
	case strings.ContainsAny(s, "+#"):
		return "must not contain the MQTT wildcards + or #"
	case s[0] == '$':
		return "must not start with $ (reserved for broker topics)"
	case s[0] == '/':
		return "must not start with /"
	case s[len(s)-1] == '/':
		return "must not end with / (the adapter appends /<topic>)"
	case strings.Contains(s, "//"):
		return "must not contain empty topic levels (//)"
	}
	return ""
}

func (a Asset) validateAdapter(v *errs.Validation) {
	if !ValidAdapter(a.Adapter) {
		v.Add("adapter", fmt.Sprintf("must be one of %v", Adapters), a.Adapter)
	}
	// The default prefix is valid whenever the id is, and an invalid id is
	// reported on its own field.
	if a.AdapterTopicPrefix == DefaultTopicPrefix(a.ID) {
		return
	}
	if msg := CheckTopicPrefix(a.AdapterTopicPrefix); msg != "" {
		v.Add("adapter_topic_prefix", msg, a.AdapterTopicPrefix)
	}
}
