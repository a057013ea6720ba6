// Package narrator drafts the fault message an operator reviews before
// declaring an asset faulty (document 2, POST
// /v1/alarms/{alarm_key}/fault-message-draft): a subject and a plain-text
// body in formal German (Sie-Form) or English, addressed to the asset's
// contacts, written by a language model behind an OpenAI-compatible
// chat-completions endpoint from the alarm's evidence.
//
// The draft is a proposal, never sent as it is: the declare endpoint sends
// the text the operator reviewed. So the package refuses rather than
// guesses: an endpoint that is not configured is errs.Unavailable (503
// narrator_not_configured); one that fails, times out or answers anything
// but a usable {subject, body} is errs.BadGateway (502 narrator_failed or
// narrator_unusable), and there is no fallback text. A usable draft gets the
// operator's signature and a reference footer (alarm key, alarm id, deep
// link) appended, and lists the numbers it quotes that the evidence does not
// support (UnverifiedNumbers), for the operator to check. docs/fault-messages.md
// describes the prompt, the validation and the number check.
package narrator
