package onboarding

import "atcp/internal/errs"

// Error codes of the onboarding area.
const (
	// CodeOnboardingNotFound: no such onboarding visible to the caller (404).
	CodeOnboardingNotFound errs.Code = "onboarding_not_found"
	// CodeGateNotFound: the onboarding has no such gate (404).
	CodeGateNotFound errs.Code = "gate_not_found"
	// CodeTemplateNotFound: no built-in template has that id (404).
	CodeTemplateNotFound errs.Code = "template_not_found"
	// CodeGateDefinitionNotFound: no built-in gate definition has that id (404).
	CodeGateDefinitionNotFound errs.Code = "gate_definition_not_found"
	// CodeOnboardingClosed: the workflow is completed or cancelled; it is read-only (409).
	CodeOnboardingClosed errs.Code = "onboarding_closed"
	// CodeOnboardingExists: the asset already has an in_progress workflow (409).
	CodeOnboardingExists errs.Code = "onboarding_exists"
	// CodeAssetNotOnboarding: a workflow is created only for an asset in status onboarding (409).
	CodeAssetNotOnboarding errs.Code = "asset_not_onboarding"
	// CodeGateTransitionNotAllowed: the action is not allowed from the gate's status (409).
	CodeGateTransitionNotAllowed errs.Code = "gate_transition_not_allowed"
	// CodeGateNotReady: submit while a gate it depends on is not passed or waived (409).
	CodeGateNotReady errs.Code = "gate_not_ready"
	// CodeGateRequirementsUnmet: submit while a requirement of the gate is unmet; errors[] lists each (422).
	CodeGateRequirementsUnmet errs.Code = "gate_requirements_unmet"
	// CodeGateNotWaivable: the go-live gate cannot be waived (422).
	CodeGateNotWaivable errs.Code = "gate_not_waivable"
	// CodeGateNotReopenable: the go-live gate cannot be reopened (409).
	CodeGateNotReopenable errs.Code = "gate_not_reopenable"
	// CodeGateLocked: the gate is submitted, passed or waived; its fields, rows and documents cannot change (409).
	CodeGateLocked errs.Code = "gate_locked"
	// CodePlatformOnly: the action is for the platform organisation's onboarding managers (403).
	CodePlatformOnly errs.Code = "platform_only"
	// CodeNotGateOwner: an organisation user may submit only gates owned by asset_owner (403).
	CodeNotGateOwner errs.Code = "not_gate_owner"
	// CodeAssetUpdateRefused: an on-pass change of the asset was refused by the asset validation (409).
	CodeAssetUpdateRefused errs.Code = "asset_update_refused"
	// CodeEditConflict: If-Match named a version that is no longer the current one (409).
	CodeEditConflict errs.Code = "edit_conflict"
)

// CodeAssetNotFound: the asset a workflow is created for is unknown,
// deleted or of another organisation (404).
const CodeAssetNotFound errs.Code = "asset_not_found"
