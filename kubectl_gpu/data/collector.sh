#!/bin/sh
# kubectl-gpu collector, run inside the GPU debug pod (POSIX sh: dash, busybox ash, bash).
#
# Output, parsed by kubectl_gpu.core.probe.collector:
#
#   ===KUBECTL-GPU:COLLECTOR v1 id=<ID>===
#   ===KUBECTL-GPU:BEGIN <section> rc=<exit code> id=<ID>===
#   <the command's stdout, byte for byte, followed by one newline>
#   ===KUBECTL-GPU:STDERR <section> id=<ID>===        (only when the command wrote to stderr)
#   <the command's stderr, followed by one newline>
#   ===KUBECTL-GPU:END <section> id=<ID>===
#   ... one block per section ...
#   ===KUBECTL-GPU:DONE id=<ID>===
#
# <ID> is random per run, so no tool output can contain a marker line. Every section runs whatever happened
# before it (no `set -e`); a missing command gives rc=127 and its message in the STDERR block.
#
# The pid-cgroups section: for each GPU process (nvidia-smi --query-compute-apps; on Neuron nodes also the
# PIDs neuron-ls lists), a line `pid <PID>` followed by the lines of $KUBECTL_GPU_PROC/<PID>/cgroup (the pod
# runs with hostPID, so these are the host's PIDs, as nvidia-smi reports them). A process that exited before
# its cgroup was read has the `pid` line only. No GPU process: an empty section.
#
# Environment (for tests and unusual pods): KUBECTL_GPU_TIMEOUT (seconds per command, default 60),
# KUBECTL_GPU_HOST_ROOT (host / mount, default /host), KUBECTL_GPU_PROC (default /proc),
# KUBECTL_GPU_HOSTNS (1: run lsblk/findmnt in the host mount namespace when possible, default 1),
# KUBECTL_GPU_NO_TMP (1: use no temp files; stdout and stderr then arrive merged).

KG_VERSION=v1
KG_TIMEOUT=${KUBECTL_GPU_TIMEOUT:-60}
KG_HOST=${KUBECTL_GPU_HOST_ROOT:-/host}
KG_PROC=${KUBECTL_GPU_PROC:-/proc}
KG_HOSTNS=${KUBECTL_GPU_HOSTNS:-1}
KG_NL='
'

# Fields of the nvidia-smi-csv section; keep in sync with QUERY_GPU_FIELDS / QUERY_GPU_FIELDS_BASIC in
# kubectl_gpu/core/probe/nvidia_csv.py. Drivers before R460 reject the full list, so the basic one follows.
KG_FIELDS=index,name,uuid,pci.bus_id,driver_version,memory.total,memory.used,memory.free,utilization.gpu,temperature.gpu,power.draw,power.limit,persistence_mode,compute_mode,mig.mode.current,mig.mode.pending,ecc.mode.current,ecc.mode.pending,ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,ecc.errors.corrected.aggregate.total,ecc.errors.uncorrected.aggregate.total,retired_pages.single_bit_ecc.count,retired_pages.double_bit.count,retired_pages.pending,remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure,clocks_throttle_reasons.active
KG_FIELDS_BASIC=index,name,uuid,pci.bus_id,driver_version,memory.total,memory.used,memory.free,utilization.gpu,temperature.gpu,power.draw,power.limit

kg_have() {
    command -v "$1" >/dev/null 2>&1
}

kg_id() {
    kg_rand=$(od -An -N8 -tx1 /dev/urandom 2>/dev/null | tr -d ' \n')
    case $kg_rand in
        '' | *[!0-9a-f]*) kg_rand="$$x$(date +%s 2>/dev/null)" ;;
    esac
    printf '%s' "$kg_rand" | tr -cd '0-9A-Za-z'
}

kg_run() {
    # Run a command with a time limit where `timeout` exists (a wedged GPU can hang nvidia-smi).
    if kg_have timeout; then
        timeout "$KG_TIMEOUT" "$@"
    else
        "$@"
    fi
}

kg_smi() {
    # nvidia-smi from the container (NVIDIA runtime hook), else the host's binary via chroot.
    if kg_have nvidia-smi; then
        kg_run nvidia-smi "$@"
    elif [ -x "$KG_HOST/usr/bin/nvidia-smi" ] && kg_have chroot; then
        kg_run chroot "$KG_HOST" /usr/bin/nvidia-smi "$@"
    else
        echo "nvidia-smi: command not found" >&2
        return 127
    fi
}

kg_smi_csv() {
    if kg_out=$(kg_smi --query-gpu="$KG_FIELDS" --format=csv,nounits 2>&1); then
        printf '%s\n' "$kg_out"
        return 0
    fi
    printf 'full query failed, using basic fields: %s\n' "$kg_out" >&2
    kg_smi --query-gpu="$KG_FIELDS_BASIC" --format=csv,nounits
}

kg_hostns() {
    # lsblk / findmnt read mountpoints from the caller's mount namespace: use the host's (hostPID +
    # privileged) when its binary exists there, else run the container's own.
    if [ "$KG_HOSTNS" = 1 ] && kg_have nsenter && [ -r "$KG_PROC/1/ns/mnt" ] \
        && nsenter -t 1 -m -- sh -c 'command -v "$1"' sh "$1" >/dev/null 2>&1; then
        kg_run nsenter -t 1 -m -- "$@"
    else
        kg_run "$@"
    fi
}

kg_os_release() {
    kg_file="$KG_HOST/etc/os-release"
    if [ -L "$kg_file" ] && kg_have readlink; then
        kg_target=$(readlink "$kg_file")
        case $kg_target in
            /*) kg_file="$KG_HOST$kg_target" ;;
        esac
    fi
    [ -e "$kg_file" ] || kg_file="$KG_HOST/usr/lib/os-release"
    cat "$kg_file"
}

kg_neuron_ls() {
    if kg_have neuron-ls; then
        kg_run neuron-ls --json-output
    else
        kg_run chroot "$KG_HOST" /opt/aws/neuron/bin/neuron-ls --json-output
    fi
}

kg_neuron_here() {
    kg_have neuron-ls || [ -x "$KG_HOST/opt/aws/neuron/bin/neuron-ls" ]
}

kg_gpu_pids() {
    # PIDs of GPU processes, one a line (anything else nvidia-smi prints is filtered out by the caller).
    kg_status=0
    if kg_have nvidia-smi || [ -x "$KG_HOST/usr/bin/nvidia-smi" ] || ! kg_neuron_here; then
        if kg_out=$(kg_smi --query-compute-apps=pid --format=csv,noheader,nounits 2>&1); then
            printf '%s\n' "$kg_out"
        else
            kg_status=$?
            printf '%s\n' "$kg_out" >&2
        fi
    fi
    if kg_neuron_here; then
        # neuron-ls --json-output: "pid": <n> in each neuron_processes entry (one key a line after tr).
        kg_neuron_ls 2>/dev/null | tr ',{}' '\n\n\n' | while read -r kg_line; do
            case $kg_line in
                '"pid"'*:*) printf '%s\n' "${kg_line#*:}" ;;
            esac
        done
    fi
    return "$kg_status"
}

kg_pid_cgroups() {
    kg_pids=$(kg_gpu_pids)
    kg_status=$?
    printf '%s\n' "$kg_pids" | {
        kg_seen=' '
        while read -r kg_pid; do
            case $kg_pid in
                '' | *[!0-9]*) continue ;;
            esac
            case $kg_seen in
                *" $kg_pid "*) continue ;;
            esac
            kg_seen="$kg_seen$kg_pid "
            printf 'pid %s\n' "$kg_pid"
            cat "$KG_PROC/$kg_pid/cgroup" 2>/dev/null
        done
    }
    return "$kg_status"
}

kg_section() {
    # kg_section NAME COMMAND [ARGS...]
    kg_name=$1
    shift
    if [ -n "$KG_TMP" ]; then
        "$@" >"$KG_TMP/out" 2>"$KG_TMP/err" </dev/null
        kg_rc=$?
        printf '===KUBECTL-GPU:BEGIN %s rc=%s id=%s===\n' "$kg_name" "$kg_rc" "$KG_ID"
        cat "$KG_TMP/out"
        printf '\n'
        if [ -s "$KG_TMP/err" ]; then
            printf '===KUBECTL-GPU:STDERR %s id=%s===\n' "$kg_name" "$KG_ID"
            cat "$KG_TMP/err"
            printf '\n'
        fi
    else
        # No writable temp dir: stdout and stderr arrive merged, without trailing newlines.
        kg_out=$("$@" 2>&1 </dev/null; printf '\n%s' "$?")
        kg_rc=${kg_out##*"$KG_NL"}
        kg_out=${kg_out%"$KG_NL$kg_rc"}
        printf '===KUBECTL-GPU:BEGIN %s rc=%s id=%s===\n' "$kg_name" "$kg_rc" "$KG_ID"
        printf '%s\n' "$kg_out"
    fi
    printf '===KUBECTL-GPU:END %s id=%s===\n' "$kg_name" "$KG_ID"
}

KG_ID=$(kg_id)
KG_TMP=
if [ "${KUBECTL_GPU_NO_TMP:-0}" != 1 ]; then
    KG_TMP=$(mktemp -d 2>/dev/null) || KG_TMP=
    for kg_dir in "${TMPDIR:-/tmp}/kubectl-gpu.$$" "/dev/shm/kubectl-gpu.$$"; do
        [ -n "$KG_TMP" ] && break
        mkdir -p "$kg_dir" 2>/dev/null && KG_TMP=$kg_dir
    done
fi
trap 'if [ -n "$KG_TMP" ]; then rm -rf "$KG_TMP"; fi' EXIT
trap 'exit 130' INT TERM

printf '===KUBECTL-GPU:COLLECTOR %s id=%s===\n' "$KG_VERSION" "$KG_ID"
kg_section nvidia-smi-xml kg_smi -q -x
kg_section nvidia-smi-csv kg_smi_csv
kg_section nvidia-smi-list kg_smi -L
kg_section nvidia-smi-topo kg_smi topo -m
kg_section pid-cgroups kg_pid_cgroups
kg_section driver-version cat "$KG_PROC/driver/nvidia/version"
kg_section lsblk kg_hostns lsblk -J -b -o NAME,TYPE,SIZE,MODEL,MOUNTPOINT,FSTYPE
kg_section mdstat cat "$KG_PROC/mdstat"
kg_section findmnt kg_hostns findmnt -J
kg_section uname uname -r
kg_section os-release kg_os_release
if kg_neuron_here; then
    kg_section neuron-ls kg_neuron_ls
fi
printf '===KUBECTL-GPU:DONE id=%s===\n' "$KG_ID"
exit 0
