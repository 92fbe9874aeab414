package wire

// The one table of error codes the host answers and the SDK shares
// (docs/design.md, "Errors"). Plugins add their own codes as Code constants
// of their package; an arg a handler refuses is CodeInvalidArgs like any
// other.
const (
	CodeUnknownTool      Code = "unknown_tool"
	CodeUnknownAction    Code = "unknown_action"
	CodeUnknownSkill     Code = "unknown_skill"
	CodeInvalidArgs      Code = "invalid_args"
	CodeApprovalRequired Code = "approval_required"
	CodeDenied           Code = "denied"
	CodeNotReady         Code = "not_ready"
	CodeDisabled         Code = "disabled"
	CodeBusy             Code = "busy"
	CodeTimeout          Code = "timeout"
	CodeCancelled        Code = "cancelled"
	CodePluginCrashed    Code = "plugin_crashed"
	CodeResultTooLarge   Code = "result_too_large"
	CodeInternalError    Code = "internal_error"
)

// Failure returns a result carrying only the error envelope.
func Failure(code Code, message, nextStep string) *Result {
	return &Result{Error: &ErrorEnvelope{Code: string(code), Message: message, NextStep: nextStep}}
}
