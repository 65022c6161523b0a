package rpc

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/rules"
)

// CreateRule writes a new rules file.
func (s *Services) CreateRule(_ context.Context, req *cairnv1.CreateRuleRequest) (*cairnv1.CreateRuleResponse, error) {
	r, err := rules.Create(req.GetWorkspaceRoot(), s.b.Dirs.GlobalRules, req.GetGlobal(), req.GetName(), req.GetContent())
	if err != nil {
		return nil, rulesStatus(err)
	}
	return &cairnv1.CreateRuleResponse{Rule: &cairnv1.RuleEntry{Id: r.ID, Name: r.Name, Path: r.Path, Source: string(r.Source),
		Enabled: true, Global: r.Source == rules.SourceGlobal}}, nil
}

func rulesStatus(err error) error {
	switch {
	case errors.Is(err, rules.ErrBadName), errors.Is(err, rules.ErrNoDir):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, rules.ErrExists):
		return status.Error(codes.AlreadyExists, err.Error())
	case errors.Is(err, rules.ErrUnknownID):
		return status.Error(codes.NotFound, err.Error())
	}
	return toStatus(err)
}
