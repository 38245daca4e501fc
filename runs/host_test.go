package runs_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/stead-dev/stead/runs"
)

// TestRunsNameTheirMachine: a supervisor's runs name the machine it is
// told (a cluster member's name), in their record and their supervisor.
func TestRunsNameTheirMachine(t *testing.T) {
	b := listeningBus(t)
	sv := &runs.Supervisor{Bus: b, Host: "node-7"}
	spec := runs.Spec{ID: runs.NewID(), To: "codex", Dir: t.TempDir()}
	sv.Failed(spec, errors.New("no such session"))
	r, err := b.Run(context.Background(), spec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "node-7/" + strconv.Itoa(os.Getpid()); r.Host != "node-7" || r.Supervisor != want {
		t.Errorf("the run's record names host %q, supervisor %q; want node-7, %s", r.Host, r.Supervisor, want)
	}
}
