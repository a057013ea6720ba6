package segmentation

import "encoding/json"

// storedSegment is the persisted shape of a segment; both stores keep a
// design's segments as one JSON array, read and written whole.
type storedSegment struct {
	ID           string  `json:"segment_id"`
	Name         string  `json:"name"`
	Share        float64 `json:"share"`
	Counterparty *string `json:"counterparty,omitempty"`
	Color        *string `json:"color,omitempty"`
}

// EncodeSegments is the stored form of segments.
func EncodeSegments(segments []Segment) ([]byte, error) {
	out := make([]storedSegment, len(segments))
	for i, g := range segments {
		out[i] = storedSegment(g)
	}
	return json.Marshal(out)
}

// DecodeSegments reads what EncodeSegments wrote.
func DecodeSegments(data []byte) ([]Segment, error) {
	var in []storedSegment
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, err
	}
	out := make([]Segment, len(in))
	for i, g := range in {
		out[i] = Segment(g)
	}
	return out, nil
}
