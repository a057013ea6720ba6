// Package incident is the client of the incident-management tool that
// pages the on-call staff for production-critical assets (document 2, GET
// /v1/alarms/{alarm_key}/incident). The tool is shaped like PagerDuty: an
// incident is opened and resolved through the Events API v2 (POST
// {URL}/v2/enqueue, keyed by the alarm's lifecycle id as dedup_key) and read
// back through the REST API (GET {URL}/incidents?incident_key=...), which is
// how acknowledgements made in the tool, by a person or an automation,
// reach the portal.
//
// Reading is best effort: when the tool is not configured, cannot be
// reached, is slow or answers anything unexpected, Status says Found false
// and logs why at warn; it never fails the request that asked.
// docs/incidents.md maps the fields.
package incident
