package segmentationhttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	examplePut = `{"mode":"proportional","segments":[
		{"segment_id":"fcr","name":"FCR share","share":0.6,"counterparty":"Optimiser A","color":"#1f77b4"},
		{"segment_id":"trading","name":"Trading share","share":0.4}]}`

	exampleSegments = `"segments":[
		{"segment_id":"fcr","virtual_asset_id":"bess-cottbus-2.fcr","name":"FCR share","share":0.6,
		 "counterparty":"Optimiser A","color":"#1f77b4"},
		{"segment_id":"trading","virtual_asset_id":"bess-cottbus-2.trading","name":"Trading share","share":0.4,
		 "counterparty":null,"color":null}]`

	exampleDraft = `{"asset_id":"bess-cottbus-2","mode":"proportional","status":"draft","version":1,
		"updated_at":"2026-02-01T06:00:47Z",` + exampleSegments + `}`

	exampleActive = `{"asset_id":"bess-cottbus-2","mode":"proportional","status":"active","version":1,
		"updated_at":"2026-02-01T06:00:48Z",` + exampleSegments + `}`
)
