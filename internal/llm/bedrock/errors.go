package bedrock

import (
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Bedrock names its failures in the x-amzn-ErrorType header (HTTP) or the
// :exception-type header (in the stream). These are turned into messages
// that name the region and the model and say what to do, since "403
// Forbidden" alone sends people to the wrong place.

// errorType strips the "Type:namespace" suffix AWS appends.
func errorType(h string) string {
	if i := strings.IndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	return strings.TrimSpace(h)
}

// httpError refines the error of a non-2xx answer.
func httpError(pe *llm.ProviderError, xErrType string, t *target) *llm.ProviderError {
	if pe.Status == 0 {
		return pe // network, abort: nothing Bedrock said
	}
	typ := errorType(xErrType)
	out := *pe
	lower := strings.ToLower(pe.Message)
	switch {
	case typ == "AccessDeniedException" && (strings.Contains(lower, "don't have access to the model") ||
		strings.Contains(lower, "not authorized to access this model") || strings.Contains(lower, "model access")):
		out.Kind = llm.ErrAuth
		out.Message = "Bedrock model not enabled: " + t.modelRef + " is not available to this account (" + pe.Message +
			"). Request access to it in the Bedrock console (Model access) for region " + t.region + "."
	case typ == "AccessDeniedException":
		out.Kind = llm.ErrAuth
		out.Message = "Bedrock access denied for " + t.modelRef + ": " + pe.Message +
			". The credentials need bedrock:InvokeModelWithResponseStream on this model, and the model must be enabled in region " + t.region + "."
	case typ == "UnrecognizedClientException" || typ == "InvalidSignatureException" || typ == "ExpiredTokenException" ||
		typ == "IncompleteSignatureException" || typ == "MissingAuthenticationTokenException":
		out.Kind = llm.ErrAuth
		out.Message = "Bedrock rejected the AWS credentials (" + typ + ") for " + t.modelRef + ": " + pe.Message +
			". Refresh them (aws sso login, new keys) or check the system clock."
	case typ == "ResourceNotFoundException" || pe.Status == 404:
		out.Kind = llm.ErrInvalidRequest
		out.Message = "Bedrock model not found: " + t.modelRef + ": " + pe.Message +
			". Check the model id, or use a region where it is offered (or its inference profile, e.g. us.<id>)."
	case typ == "ValidationException" && isNotEnabled(lower):
		out.Kind = llm.ErrInvalidRequest
		out.Message = "Bedrock model not enabled: " + t.modelRef + ": " + pe.Message +
			". Enable it in the Bedrock console (Model access), or call it through an inference profile (e.g. us." +
			strings.TrimPrefix(t.modelID, "us.") + ")."
	case typ == "ThrottlingException" || pe.Status == 429:
		out.Kind = llm.ErrRateLimit
		out.Message = "Bedrock throttled the request for " + t.modelRef + ": " + pe.Message
	case typ == "ServiceQuotaExceededException":
		out.Kind = llm.ErrQuota
		out.Message = "Bedrock service quota exceeded for " + t.modelRef + ": " + pe.Message
	case typ == "ModelNotReadyException":
		out.Kind = llm.ErrOverloaded
		out.Message = "Bedrock model not ready: " + t.modelRef + ": " + pe.Message
	case typ == "ServiceUnavailableException":
		out.Kind = llm.ErrOverloaded
		out.Message = "Service unavailable: " + pe.Message + " (" + t.modelRef + ")"
	case typ == "ModelTimeoutException":
		out.Kind = llm.ErrServer
		out.Message = "Bedrock model timed out: " + pe.Message + " (" + t.modelRef + ")"
	case typ != "":
		out.Message = typ + ": " + pe.Message + " (" + t.modelRef + ")"
	default:
		out.Message = pe.Message + " (" + t.modelRef + ")"
	}
	if strings.Contains(lower, "data retention mode") {
		out.Message += " See https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html for supported data retention modes."
	}
	return &out
}

// isNotEnabled recognizes the ValidationException texts of a model the
// account cannot call as addressed.
func isNotEnabled(lower string) bool {
	return strings.Contains(lower, "model identifier is invalid") ||
		strings.Contains(lower, "on-demand throughput isn") ||
		strings.Contains(lower, "is not enabled") ||
		strings.Contains(lower, "don't have access")
}

// streamException turns an exception frame into an error. The prefixes are
// the original's, which retry classification elsewhere matches.
func streamException(typ, message string, t *target) *llm.ProviderError {
	if message == "" {
		message = typ
	}
	ref := " (" + t.modelRef + ")"
	switch typ {
	case "throttlingException":
		return &llm.ProviderError{Kind: llm.ErrRateLimit, Message: "Throttling error: " + message + ref}
	case "serviceUnavailableException":
		return &llm.ProviderError{Kind: llm.ErrOverloaded, Message: "Service unavailable: " + message + ref}
	case "internalServerException":
		return &llm.ProviderError{Kind: llm.ErrServer, Message: "Internal server error: " + message + ref}
	case "modelStreamErrorException":
		return &llm.ProviderError{Kind: llm.ErrServer, Message: "Model stream error: " + message + ref}
	case "validationException":
		kind := llm.ErrInvalidRequest
		if llm.IsContextOverflow(message) {
			kind = llm.ErrContextOverflow
		}
		return &llm.ProviderError{Kind: kind, Message: "Validation error: " + message + ref}
	}
	pe := llm.StreamError(typ, message)
	pe.Message += ref
	return pe
}
