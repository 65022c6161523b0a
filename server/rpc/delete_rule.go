package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/rules"
)

// DeleteRule removes a rules file by id.
func (s *Services) DeleteRule(_ context.Context, req *cairnv1.DeleteRuleRequest) (*cairnv1.DeleteRuleResponse, error) {
	if err := rules.Delete(req.GetWorkspaceRoot(), s.b.Dirs.GlobalRules, req.GetId()); err != nil {
		return nil, rulesStatus(err)
	}
	return &cairnv1.DeleteRuleResponse{}, nil
}
