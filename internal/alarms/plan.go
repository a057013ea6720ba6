package alarms

import (
	"time"

	"atcp/internal/auth"
)

// Plan decides a shard's writes at now: inputs are its evaluated assets,
// st what is stored of it. Each rule is evaluated on each asset and its
// track stepped (Step); what opens gets a new lifecycle (alarm id from
// newID), what resolves is resolved, an expired mute is lifted. The open
// lifecycles of assets no longer evaluated (deleted, offboarded) and of
// rules no longer in the catalogue resolve at once, and their tracks go.
// Only changes are written: a steady shard writes nothing.
func Plan(now time.Time, inputs []Input, st EngineState, newID func(time.Time) string) Batch {
	var b Batch
	tracks := make(map[Key]*Track, len(st.Tracks))
	for i := range st.Tracks {
		tracks[st.Tracks[i].Key] = &st.Tracks[i]
	}
	lifecycles := make(map[Key]*Lifecycle, len(st.Lifecycles))
	for i := range st.Lifecycles {
		l := &st.Lifecycles[i]
		lifecycles[l.Key] = l
		if l.Muted && !l.mutedAt(now) {
			b.Updates = append(b.Updates, Update{Key: l.Key, Visibility: auth.Visibility{All: true}, Decide: DecideMuteExpiry(now)})
		}
	}
	evaluated := make(map[string]bool, len(inputs))
	for i := range inputs {
		in := &inputs[i]
		evaluated[in.Asset.ID] = true
		for _, r := range catalog {
			key := Key{AssetID: in.Asset.ID, RuleID: r.ID}
			var l *Lifecycle
			var track *Track
			// Most keys have neither: no lookup while the shard is quiet.
			if len(lifecycles) > 0 {
				l = lifecycles[key]
			}
			if len(tracks) > 0 {
				track = tracks[key]
			}
			open := l != nil && l.Open
			res := Step(r, key, in.Asset.OrganizationID, track, open, r.Evaluate(in), now)
			switch {
			case res.Changed && res.Track != nil:
				b.Tracks = append(b.Tracks, *res.Track)
			case res.Changed:
				b.DropTracks = append(b.DropTracks, key)
			}
			switch res.Transition {
			case Open:
				b.Updates = append(b.Updates, Update{Key: key, Visibility: auth.Visibility{All: true}, Decide: DecideOpen(Opening{
					Rule: r, Key: key, OrganizationID: in.Asset.OrganizationID, Evidence: evidence(r, in, res.Lasted),
					At: now, AlarmID: newID(now)})})
			case Resolve:
				b.Updates = append(b.Updates, Update{Key: key, Visibility: auth.Visibility{All: true},
					Decide: DecideResolve(l.AlarmID, r.Name+" cleared on "+key.AssetID, evidence(r, in, res.Lasted), now)})
			}
		}
	}
	judged := func(k Key) bool {
		_, known := byID[k.RuleID]
		return known && evaluated[k.AssetID]
	}
	for key, l := range lifecycles {
		if l.Open && !judged(key) {
			b.Updates = append(b.Updates, Update{Key: key, Visibility: auth.Visibility{All: true}, Decide: DecideResolve(l.AlarmID,
				"Resolved without evaluation: the asset was deleted or offboarded, or the rule withdrawn",
				Evidence{Facts: []string{"asset " + key.AssetID + " or rule " + key.RuleID + " is no longer evaluated"}}, now)})
		}
	}
	for key := range tracks {
		if !judged(key) {
			b.DropTracks = append(b.DropTracks, key)
		}
	}
	return b.Sorted()
}

func evidence(r *Rule, in *Input, lasted time.Duration) Evidence {
	ev := Evidence{Facts: r.Facts(in), SustainedSeconds: int64(lasted / time.Second)}
	if in.Latest != nil {
		t := in.Latest.Timestamp.UTC()
		ev.MeasuredAt = &t
	}
	return ev
}
