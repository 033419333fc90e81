package ui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// Run shows the screen for a until the person quits or ctx is done. Extra options go
// to tea.NewProgram (tests pass input, output and a window size).
func Run(ctx context.Context, a Agent, info Info, opts ...tea.ProgramOption) error {
	if a == nil {
		return errors.New("ui.Run: no agent")
	}
	opts = append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)
	p := tea.NewProgram(New(a, info), opts...)
	if _, err := p.Run(); err != nil {
		if ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
			return ctx.Err()
		}
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}
