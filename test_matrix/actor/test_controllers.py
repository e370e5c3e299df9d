"""Controllers (``get_or_spawn_controller``): one singleton actor per name per client process,
held by the client's controller-controller actor (torchmonarch 0.7.0, proc_mesh.py).

Three branches of ``_ControllerController.get_or_spawn`` and one of its ``__supervise__``:
the first get spawns on the controller-controller's own proc (the client process), a later get
of that name returns the stored mesh without constructing again, a get from inside an actor
reaches the same controller-controller through the actor's context, and a controller whose
constructor raised is stored as its MeshFailure, which every later get of that name raises.
Controller names are global to the client process, so each case uses its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")


@pytest.fixture(scope="module")
def callers(fault_log):
    from monarch.actor import this_host

    mesh = this_host().spawn_procs(per_host={"gpus": 1})
    yield mesh.spawn("controller_callers", subjects.Caller)
    stop_mesh(mesh)


def test_a_controller_is_spawned_once_per_name_in_the_client_process():
    """The second get of a name returns the first controller, state and all; the constructor
    arguments of a later get are not used (Probe takes none: a spawn with one would fail)."""
    from monarch.actor import get_or_spawn_controller

    first = get_or_spawn_controller("matrix_ctl_once", subjects.Probe).get(timeout=60)
    assert first.bump.call_one().get(timeout=60) == 1
    assert first.pid.call_one().get(timeout=60) == os.getpid()  # spawned on the client's proc
    again = get_or_spawn_controller("matrix_ctl_once", subjects.Probe, "ignored argument").get(timeout=60)
    assert again.bump.call_one().get(timeout=60) == 2


def test_another_name_is_another_controller():
    from monarch.actor import get_or_spawn_controller

    a = get_or_spawn_controller("matrix_ctl_left", subjects.Probe).get(timeout=60)
    b = get_or_spawn_controller("matrix_ctl_right", subjects.Probe).get(timeout=60)
    assert [a.bump.call_one().get(timeout=60) for _ in range(2)] == [1, 2]
    assert b.bump.call_one().get(timeout=60) == 1


def test_an_actor_reaches_the_clients_controller(callers):
    """From inside an actor on another proc, a get goes to the client's controller-controller:
    a name the actor spawns first is the client's too, and the client's is the actor's."""
    from monarch.actor import get_or_spawn_controller

    count, pid = callers.bump_controller.call_one("matrix_ctl_from_actor").get(timeout=60)
    assert (count, pid) == (1, os.getpid())
    mine = get_or_spawn_controller("matrix_ctl_from_actor", subjects.Probe).get(timeout=60)
    assert mine.bump.call_one().get(timeout=60) == 2
    assert callers.bump_controller.call_one("matrix_ctl_from_actor").get(timeout=60) == (3, os.getpid())


# A failed controller leaves a supervision event on the client's own proc, which then refuses
# every new spawn for the rest of the process: this case runs in a child process of its own.
FAILED_CONTROLLER = textwrap.dedent('''
    import sys
    from pathlib import Path

    import monarch.actor
    from monarch.actor import get_or_spawn_controller
    from porting.matrix.monarch_util import load_by_value

    faults = []
    monarch.actor.unhandled_fault_hook = lambda failure: faults.append(str(failure))
    subjects = load_by_value(Path(sys.argv[1]), "port_matrix_actor_subjects")

    def outcome(fn):
        try:
            fn()
            return "ok"
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"

    boom = get_or_spawn_controller("matrix_ctl_boom", subjects.Boom, "controller refused").get(timeout=60)
    call = outcome(lambda: boom.rank.call_one().get(timeout=60))
    print("CALL", call.splitlines()[0])
    print("CALL_CAUSE", "RuntimeError: controller refused" in call)
    again = outcome(lambda: get_or_spawn_controller("matrix_ctl_boom", subjects.Probe).get(timeout=60))
    print("AGAIN", again.splitlines()[0], "Failure on matrix_ctl_boom" in again, "controller refused" in again)
    other = outcome(lambda: get_or_spawn_controller("matrix_ctl_other", subjects.Probe).get(timeout=60))
    print("OTHER", other.splitlines()[0], "Cannot spawn new actors on mesh with supervision events" in other)
    print("FAULTS", sum("mesh_name=matrix_ctl_boom" in f for f in faults))
''')


def test_a_controller_whose_constructor_raised_fails_every_later_get(tmp_path):
    import porting

    root = str(Path(porting.__file__).parents[1])  # the child imports porting as this process does
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", FAILED_CONTROLLER, str(Path(__file__).with_name("subjects.py"))],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in proc.stdout.splitlines()
             if line.split(" ", 1)[0] in ("CALL", "CALL_CAUSE", "AGAIN", "OTHER", "FAULTS")}
    # the controller's calls fail with the constructor's error (its own supervision)
    assert lines["CALL"].startswith("SupervisionError: Endpoint call matrix_ctl_boom.rank() failed"), lines
    assert lines["CALL_CAUSE"] == "True", lines
    # the controller-controller kept the MeshFailure: the same name raises it, whatever class
    assert lines["AGAIN"].startswith("ActorError: ") and lines["AGAIN"].endswith("True True"), lines
    # and its proc refuses any new controller
    assert lines["OTHER"].startswith("ActorError: ") and lines["OTHER"].endswith("True"), lines
    # __supervise__ handled the mesh's failure: it never reaches the client's unhandled-fault
    # hook (the call sent to the dead actor is reported there as undeliverable, by the client)
    assert lines["FAULTS"] == "0", lines
