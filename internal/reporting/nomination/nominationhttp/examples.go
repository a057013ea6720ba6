package nominationhttp

// Examples of request and response bodies for the OpenAPI document;
// internal/app's tests check each against its schema.

const (
	exampleSchedule = `{"delivery_day":"2026-02-02","day_start":"2026-02-01T23:00:00Z","day_end":"2026-02-02T23:00:00Z",
		"expected_period_count":96,"zones":[{"tso":"50HZ","aggregate_scope":"balancing_group","control_area_eic":"10YDE-VE-------2",
		"nomination_pos":{"data_exchange_reference":"ATCP-20260202-50HZ-demo-R001","source_control_area_eic":"10YDE-VE-------2",
		"target_control_area_eic":"10YDE-VE-------2","source_balancing_group_eic":"11XATCP-TEST-P1C",
		"target_balancing_group_eic":"11XATCP-TEST-D1B","unit":"MW"},
		"nomination_neg":{"data_exchange_reference":"ATCP-20260202-50HZ-demo-R001","source_control_area_eic":"10YDE-VE-------2",
		"target_control_area_eic":"10YDE-VE-------2","source_balancing_group_eic":"11XATCP-TEST-D1B",
		"target_balancing_group_eic":"11XATCP-TEST-P1C","unit":"MW"},
		"periods":[{"period_start":"2026-02-01T23:00:00Z","volume_pos_mw":"0","volume_neg_mw":"3.1"},
		{"period_start":"2026-02-01T23:15:00Z","volume_pos_mw":"0","volume_neg_mw":"0"}],
		"assets":[{"asset_id":"demo-bess","balancing_group_responsible_org_id":"demo",
		"periods":[{"period_start":"2026-02-01T23:00:00Z","volume_pos_mw":"0","volume_neg_mw":"3.1"},
		{"period_start":"2026-02-01T23:15:00Z","volume_pos_mw":"0","volume_neg_mw":"0"}]}]}]}`

	exampleFile = "\uFEFFData exchange reference;ATCP-20260202-50HZ-demo-R001\r\nControl area from;10YDE-VE-------2\r\n" +
		"Control area to;10YDE-VE-------2\r\nBalancing group from;11XATCP-TEST-D1B\r\nBalancing group to;11XATCP-TEST-P1C\r\n" +
		"Unit;MW\r\n02.02.2026 00:00;3,100\r\n02.02.2026 00:15;0,000\r\n02.02.2026 00:30;\r\n"

	exampleRevisions = `{"organization_id":"demo","delivery_day":"2026-02-02","revisions":[
		{"tso":"50HZ","revision":1,"data_exchange_reference":"ATCP-20260202-50HZ-demo-R001","reason":"first revision",
		"status":"acknowledged","detail":"acknowledged by the simulated data exchange (ATCP-20260202-50HZ-demo-R001)","period_count":95,
		"visible":true,"created_at":"2026-02-03T01:00:00Z","sent_at":"2026-02-03T01:00:00Z","answered_at":"2026-02-03T01:00:00Z"},
		{"tso":"50HZ","revision":2,"data_exchange_reference":"ATCP-20260202-50HZ-demo-R002","reason":"1 zone period(s) changed; 1 asset row(s) changed",
		"status":"rejected","detail":"rejected: unknown balancing group","period_count":96,"visible":false,
		"created_at":"2026-02-03T02:00:00Z","sent_at":"2026-02-03T02:00:00Z","answered_at":"2026-02-03T02:00:01Z"}]}`

	exampleConfigRequest = `{"balancing_group_responsible_org_id":"demo","control_area_eic":"10YDE-VE-------2",
		"source_control_area_eic":"10YDE-VE-------2","target_control_area_eic":"10YDE-VE-------2",
		"source_balancing_group_eic":"11XATCP-TEST-P1C","target_balancing_group_eic":"11XATCP-TEST-D1B",
		"note":"Test values of the demonstration environment: the balancing-group EICs are not registered."}`

	exampleConfig = `{"organization_id":"demo","tso":"50HZ","balancing_group_responsible_org_id":"demo",
		"control_area_eic":"10YDE-VE-------2","source_control_area_eic":"10YDE-VE-------2","target_control_area_eic":"10YDE-VE-------2",
		"source_balancing_group_eic":"11XATCP-TEST-P1C","target_balancing_group_eic":"11XATCP-TEST-D1B",
		"note":"Test values of the demonstration environment: the balancing-group EICs are not registered.",
		"updated_at":"2026-02-01T06:00:00Z"}`
)
