// Package documents keeps the documents of onboarding workflows
// (docs/onboarding.md 4.4, 5.F and 6): the document types and the slots of
// the gate definitions that ask for them, the sniffed content types and
// sizes each allows, the presigned upload, its finalization (size, type,
// SHA-256), versions, soft deletion, downloads, the "documents"
// requirement of a gate's submit, and the housekeeping of objects.
// documentshttp serves the task side (#8–11) and the manager side (#48–52).
package documents
