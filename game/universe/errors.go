package universe

import (
	"fmt"
	"net/http"
)

// apiError is an error response in the real shape:
// {"error": {"message": "...", "code": 4203, "data": {...}}}.
type apiError struct {
	Status  int            `json:"-"`
	Message string         `json:"message"`
	Code    int            `json:"code"`
	Data    map[string]any `json:"data,omitempty"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// Error codes from the SpaceTraders API guide.
const (
	codeCooldown             = 4000
	codeMissingToken         = 4103
	codeInvalidToken         = 4104
	codeSymbolTaken          = 4111
	codeNavInTransit         = 4200
	codeNavInvalidDest       = 4201
	codeNavOutsideSystem     = 4202
	codeNavNoFuel            = 4203
	codeNavSameDest          = 4204
	codeExtractInvalid       = 4205
	codeJumpNoSystem         = 4207
	codeJumpSameSystem       = 4208
	codeJumpNoValidWaypoint  = 4211
	codeInTransit            = 4214
	codeShipCredits          = 4216
	codeCargoExceeds         = 4217
	codeCargoMissing         = 4218
	codeCargoUnits           = 4219
	codeSurveyVerification   = 4220
	codeSurveyExpired        = 4221
	codeSurveyWaypointType   = 4222
	codeSurveyOrbit          = 4223
	codeSurveyExhausted      = 4224
	codeRefuelDocked         = 4225
	codeRefuelNoFuel         = 4226
	codeCargoFull            = 4228
	codeAlreadyCharted       = 4230
	codeTransferNotFound     = 4231
	codeTransferOtherAgent   = 4232
	codeTransferSameShip     = 4233
	codeTransferLocation     = 4234
	codeNotInOrbit           = 4236
	codeMissingSurveyor      = 4240
	codeMissingLaser         = 4243
	codeNotDocked            = 4244
	codeShipTypeNotSold      = 4245
	codeJumpDestInvalid      = 4255
	codeContractNotAuth      = 4500
	codeContractAccepted     = 4501
	codeContractIncomplete   = 4502
	codeContractDeadline     = 4503
	codeContractFulfilled    = 4504
	codeContractNotAccepted  = 4505
	codeDeliverMismatch      = 4508
	codeDeliverFulfilled     = 4509
	codeDeliverWrongWaypoint = 4510
	codeContractOpen         = 4511
	codeCredits              = 4600
	codeNotSold              = 4601
	codeNotBought            = 4602
	codeNoMarket             = 4603
	codeTradeVolume          = 4604
	codeNoFaction            = 4700
)

// gameErr is a rule violation: HTTP 400 with the game's code, as the real server answers.
func gameErr(code int, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: code, Message: fmt.Sprintf(format, args...)}
}

// conflict is a rule violation the real server answers with 409 (cooldowns).
func conflict(code int, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusConflict, Code: code, Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusNotFound, Code: http.StatusNotFound, Message: fmt.Sprintf(format, args...)}
}

// invalid is a request that does not match the operation's schema.
func invalid(field, format string, args ...any) *apiError {
	msg := fmt.Sprintf(format, args...)
	return &apiError{Status: http.StatusUnprocessableEntity, Code: http.StatusUnprocessableEntity,
		Message: "Request could not be processed due to an invalid payload: " + msg,
		Data:    map[string]any{field: []string{msg}}}
}

func (e *apiError) with(key string, v any) *apiError {
	if e.Data == nil {
		e.Data = map[string]any{}
	}
	e.Data[key] = v
	return e
}

func (e *apiError) withCode(code int) *apiError {
	e.Code = code
	return e
}
