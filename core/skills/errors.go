package skills

import "errors"

// ErrInvalid marks a SKILL.md that cannot be used as a skill (not text).
var ErrInvalid = errors.New("skills: invalid skill")
