package wire

// Host error codes (docs/design.md, "Errors"). Plugins add their own codes.
const (
	CodeUnknownTool      = "unknown_tool"
	CodeUnknownAction    = "unknown_action"
	CodeUnknownSkill     = "unknown_skill"
	CodeInvalidArgs      = "invalid_args"
	CodeApprovalRequired = "approval_required"
	CodeDenied           = "denied"
	CodeNotReady         = "not_ready"
	CodeDisabled         = "disabled"
	CodeBusy             = "busy"
	CodeTimeout          = "timeout"
	CodeCancelled        = "cancelled"
	CodePluginCrashed    = "plugin_crashed"
	CodeResultTooLarge   = "result_too_large"
	CodeInternalError    = "internal_error"
)

// Failure returns a result carrying only the error envelope.
func Failure(code, message, nextStep string) *Result {
	return &Result{Error: &ErrorEnvelope{Code: code, Message: message, NextStep: nextStep}}
}
