"""collector.sh itself, run with stand-in tools in a sandbox PATH (the only I/O in the probe tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kubectl_gpu.core.probe import SECTION_NAMES, parse_collector_output, split_sections

from . import _fixtures as fx

SCRIPT = Path(__file__).resolve().parents[3] / "kubectl_gpu" / "data" / "collector.sh"
SYSTEM_TOOLS = (
    "sh",
    "cat",
    "od",
    "tr",
    "mktemp",
    "rm",
    "mkdir",
    "date",
    "uname",
    "timeout",
    "readlink",
    "printf",
)

pytestmark = pytest.mark.skipif(
    shutil.which("sh") is None or shutil.which("od") is None, reason="needs a POSIX sh"
)

NVIDIA_SMI = """#!/bin/sh
case "$*" in
  "-q -x") cat "$FX/ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml" ;;
  --query-gpu=*remapped_rows*) echo 'Field "remapped_rows.correctable" is not a valid field to query.'; exit 2 ;;
  --query-gpu=*) cat "$FX/ours/csv/ours__query-gpu__basic-fields__noheader-nounits__old-driver.csv" ;;
  -L) cat "$FX/ours/list/ours__L__2x-h100-mig__matches-synthetic-xml.txt" ;;
  "topo -m") echo "topology unavailable" >&2; exit 3 ;;
  "--query-compute-apps=pid --format=csv,noheader,nounits") printf '21180\n21198\n21181\n21180\n21999\n' ;;
  *) echo "unexpected arguments: $*" >&2; exit 9 ;;
esac
"""


#: /proc/<pid>/cgroup of the GPU processes the fake nvidia-smi lists (21999 exited: no /proc entry).
CGROUPS = "ours/cgroup/ours__pid-cgroups__v1-cgroupfs-containerd__matches-h100-mig-xml.txt"
NEURON_WITH_PROCESSES = "ours/neuron/ours__neuron-ls-json__2dev-ring-with-procs.json"
NEURON_POD = "6c0e9b2d-4f17-4a3e-8d51-b9a2e7f0c384"


def _fake_proc_cgroups(proc: Path, section: str) -> None:
    """Write /proc/<pid>/cgroup files from a pid-cgroups section body (its `pid N` blocks)."""
    for block in section.split("pid ")[1:]:
        pid, _, lines = block.partition("\n")
        (proc / pid).mkdir()
        (proc / pid / "cgroup").write_text(lines)


def _sandbox(
    tmp_path: Path, *, nvidia: bool, neuron: bool, neuron_fixture: str | None = None
) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in SYSTEM_TOOLS:
        found = shutil.which(tool)
        if found is not None:
            (bin_dir / tool).symlink_to(found)
    fakes = {
        "lsblk": f'cat "$FX/{"ours/lsblk/ours__lsblk-J-b-o-collector-columns__2-of-3-instance-store-in-md127.json"}"',
        "findmnt": 'cat "$FX/ours/findmnt/ours__findmnt-J__md127-mounted.json"',
    }
    if nvidia:
        (bin_dir / "nvidia-smi").write_text(NVIDIA_SMI)
        (bin_dir / "nvidia-smi").chmod(0o755)
    if neuron:
        fakes["neuron-ls"] = (
            f'cat "$FX/{neuron_fixture or "neuron/all-smi__neuron-ls-json-output__trn1.2xlarge__no-trailing-newline.json"}"'
        )
    for name, body in fakes.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    proc = tmp_path / "proc"
    (proc / "driver" / "nvidia").mkdir(parents=True)
    if nvidia:
        shutil.copy(
            fx.path("ours/driver-version/ours__proc-driver-nvidia-version__proprietary-535.txt"),
            proc / "driver/nvidia/version",
        )
    shutil.copy(fx.path("ours/mdstat/ours__mdstat__raid1-degraded-faulty.txt"), proc / "mdstat")
    _fake_proc_cgroups(proc, fx.text(CGROUPS))
    _fake_proc_cgroups(
        proc,
        f"pid 109459\n0::/kubepods.slice/kubepods-pod{NEURON_POD.replace('-', '_')}.slice/cri-containerd-9f.scope\n",
    )
    host = tmp_path / "host"
    (host / "usr" / "lib").mkdir(parents=True)
    (host / "etc").mkdir()
    shutil.copy(
        fx.path("ours/os-release/ours__os-release__bottlerocket-nvidia.txt"), host / "usr/lib/os-release"
    )
    (host / "etc" / "os-release").symlink_to("/usr/lib/os-release")  # absolute, as on some hosts
    return {
        "PATH": str(bin_dir),
        "FX": str(fx.ROOT),
        "KUBECTL_GPU_PROC": str(proc),
        "KUBECTL_GPU_HOST_ROOT": str(host),
        "KUBECTL_GPU_HOSTNS": "0",
        "KUBECTL_GPU_TIMEOUT": "20",
        "TMPDIR": str(tmp_path),
    }


def _run(env: dict[str, str]) -> str:
    done = subprocess.run(
        [shutil.which("sh") or "sh", str(SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def test_script_is_posix_sh() -> None:
    subprocess.run([shutil.which("sh") or "sh", "-n", str(SCRIPT)], check=True)
    if shutil.which("bash") is not None:
        subprocess.run(["bash", "--posix", "-n", str(SCRIPT)], check=True)


def test_sections_in_order_and_parsed(tmp_path: Path) -> None:
    out = _run(_sandbox(tmp_path, nvidia=True, neuron=True))
    sections = split_sections(out)
    assert list(sections) == list(SECTION_NAMES)
    assert out.splitlines()[0].startswith("===KUBECTL-GPU:COLLECTOR v1 id=")
    assert out.splitlines()[-1].startswith("===KUBECTL-GPU:DONE id=")
    xml = fx.text("ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml")
    assert sections["nvidia-smi-xml"].body == xml  # byte for byte
    assert sections["nvidia-smi-csv"].rc == 0
    assert sections["nvidia-smi-csv"].stderr.startswith("full query failed, using basic fields: Field ")
    assert (sections["nvidia-smi-topo"].rc, sections["nvidia-smi-topo"].stderr) == (
        3,
        "topology unavailable\n",
    )
    assert not sections["neuron-ls"].body.endswith("\n")
    result = parse_collector_output(out)
    assert result.complete
    assert result.gpu_source == "nvidia-smi-xml"
    assert result.gpus[0].name == "NVIDIA H100 80GB HBM3"
    assert [m.profile_name for m in result.gpus[0].mig_devices] == ["3g.40gb", "1g.10gb"]  # from -L
    assert result.kernel_driver is not None and result.kernel_driver.version == "535.161.08"
    assert result.mdstat is not None and result.mdstat.arrays[0].degraded
    assert result.block_devices is not None and result.block_devices.raid_devices()[0].name == "md127"
    assert result.os_release is not None and dict(result.os_release.fields)["ID"] == "bottlerocket"
    assert result.neuron is not None
    assert result.kernel_release
    # every GPU process once, in nvidia-smi's order; 21999 exited before its cgroup was read
    body = sections["pid-cgroups"].body
    assert [line for line in body.splitlines() if line.startswith("pid ")] == [
        "pid 21180",
        "pid 21198",
        "pid 21181",
        "pid 21999",
    ]
    assert body.endswith("pid 21999\n") and sections["pid-cgroups"].rc == 0
    assert result.pid_pods == {
        21180: "c3a9e0d4-52f1-4b86-8d07-1e6f2a9b5c48",
        21198: "1b7f3e92-0c5a-4e1d-b6f8-93d2a4c7e015",
        21181: "e6d04b1f-8a27-4c39-95be-2f0d7c1a8e63",
    }
    assert [(i.section, i.kind) for i in result.issues] == [("nvidia-smi-topo", "failed")]


def test_missing_tools_do_not_stop_the_run(tmp_path: Path) -> None:
    out = _run(_sandbox(tmp_path, nvidia=False, neuron=False))
    sections = split_sections(out)
    assert list(sections) == list(SECTION_NAMES[:-1])  # no neuron-ls section without neuron-ls
    for name in ("nvidia-smi-xml", "nvidia-smi-csv", "nvidia-smi-list", "nvidia-smi-topo", "pid-cgroups"):
        assert sections[name].rc == 127
        assert "nvidia-smi: command not found" in sections[name].stderr
    assert sections["driver-version"].rc != 0
    result = parse_collector_output(out)
    assert result.gpus == () and result.complete
    assert result.mdstat is not None and result.block_devices is not None
    failed = {i.section for i in result.issues if i.kind == "failed"}
    assert failed == {
        "nvidia-smi-xml",
        "nvidia-smi-csv",
        "nvidia-smi-list",
        "nvidia-smi-topo",
        "pid-cgroups",
        "driver-version",
    }
    assert result.pid_pods == {}


def test_neuron_node_reads_the_cgroups_of_neuron_ls_pids(tmp_path: Path) -> None:
    out = _run(_sandbox(tmp_path, nvidia=False, neuron=True, neuron_fixture=NEURON_WITH_PROCESSES))
    section = split_sections(out)["pid-cgroups"]
    assert (section.rc, section.stderr) == (0, "")  # no nvidia-smi on a Neuron node: not a failure
    assert section.body.splitlines()[0] == "pid 109459"
    result = parse_collector_output(out)
    assert result.pid_pods == {109459: NEURON_POD}
    assert result.neuron is not None and result.neuron.devices[0].processes[0].pid == 109459


def test_without_temp_files(tmp_path: Path) -> None:
    env = _sandbox(tmp_path, nvidia=True, neuron=False)
    env["KUBECTL_GPU_NO_TMP"] = "1"
    out = _run(env)
    result = parse_collector_output(out)
    assert list(split_sections(out)) == list(SECTION_NAMES[:-1])
    assert result.gpu_source == "nvidia-smi-xml" and result.mdstat is not None
    assert sorted(result.pid_pods) == [21180, 21181, 21198]
    assert split_sections(out)["nvidia-smi-topo"].body == "topology unavailable\n"  # merged into stdout


def test_every_run_has_a_new_id(tmp_path: Path) -> None:
    env = _sandbox(tmp_path, nvidia=False, neuron=False)
    first = _run(env).splitlines()[0]
    second = _run(env).splitlines()[0]
    assert first != second


def test_package_data_is_shipped_as_a_file() -> None:
    assert SCRIPT.is_file() and os.access(SCRIPT, os.R_OK)
    assert SCRIPT.read_text().startswith("#!/bin/sh\n")
