// Package tasks is the task side of onboarding (docs/onboarding.md 4.3):
// the tasks of the caller (GET /v1/onboarding-tasks), the task detail a
// role sees of a workflow, which is also the answer of the task's document
// endpoints, and the submit of a gate the role owns. Who the caller acts as
// is onboarding.Service.ResolveTask's; the documents, the contacts'
// names and the tasks of a console user come from the groups that own
// them through the small interfaces below.
package tasks
