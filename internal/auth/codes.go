package auth

import "atcp/internal/errs"

// CodeBusy: every slot for password and secret hashing stayed taken;
// retrying shortly may succeed (503, ErrBusy).
const CodeBusy errs.Code = "server_busy"
