#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs an MPI program built with smpicxx on a simulated torus (SimGrid SMPI).
#
#   scripts/smpi-torus.sh --dims 8x8 [--bw 10GBps] [--lat 1us] [--allgather ompi]
#                         [--sharing SPLITDUPLEX|SHARED|FATPIPE] [--limiter BW]
#                         [--overhead T] [--ranks-per-node K] [--node-bw BW] [--node-lat T]
#                         [--node-sharing FATPIPE|SHARED] [--pair-links 1|2]
#                         [--preset bgq|tofud|gemini|tpu-v4|tofud-mesh|tpu-v4-mesh|ideal]
#                         [--factors ideal|smpi] [--sends auto|eager|synchronous]
#                         [--platform-dir DIR] [--cfg KEY:VALUE]...
#                         -- PROGRAM [ARGS...]
#   scripts/smpi-torus.sh --print-preset NAME    its values, one KEY=VALUE per line
#
# --preset sets the machine's published figures (docs/machines.md gives the
# source of each, or says it is an assumption); options given explicitly
# win. --overhead T: SMPI's software cost per message at the sender and at
# the receiver (smpi/os and smpi/ois for MPI_Send and MPI_Isend, smpi/or).
# --ranks-per-node K: K ranks on every
# torus node, consecutive ranks on one node; they share its links and talk
# through its loopback link (--node-bw, --node-lat: the node's shared
# memory); torusgather sees the torus D x K (TORUSGATHER_DIMS and
# TORUSGATHER_NODE_SIZE=K), the ranks of a node along the last axis.
# SimGrid's cluster makes that link a fat pipe: every copy within a node
# gets --node-bw, however many run at once. --node-sharing SHARED makes it
# one budget that a node's copies share (the platform is then built link by
# link, smpi-mesh.cpp); FATPIPE given explicitly builds the default that way.
# --pair-links 2: the two nodes of every side of 2 are joined by two links
# (Blue Gene/Q has a + and a - link on every axis), where SimGrid's torus
# routes both ways over one of them. The platform is then
# smpi-two-links.cpp, compiled once into ~/.cache/torusgather: the same
# torus with that link at twice the bandwidth each way, so that two
# messages at once (the two ports) get one link's bandwidth each; one
# message alone gets both (an assumption: the machine would send it on
# one). torusgather is told so (TORUSGATHER_PAIR_LINKS=2).
# --dims with an m after a side (8mx8mx4): that axis is open (a mesh axis).
# SimGrid's torus has every wraparound link, so the platform is then
# smpi-mesh.cpp, compiled likewise: the same cluster built link by link
# (the same names and routes) without the links that would wrap around an
# open axis, its routes going straight along it.
#
# The platform is a SimGrid cluster with topology="TORUS", dimension-order
# routing and simulate-computation off, so the times are deterministic. By
# default its links are full duplex (sharing_policy="SPLITDUPLEX": each
# direction of a link has the bandwidth --bw) and every port of a node can be
# busy at once; --sharing SHARED makes both directions share one bandwidth;
# --limiter BW adds SimGrid's per-node limiter link (limiter_link), a cap on
# all the traffic a node sends and receives (BW = --bw models a one-port node).
# SimGrid numbers hosts with its first dimension varying fastest while
# MPI_Cart_create is row-major (last axis fastest): the dims are given to
# SimGrid in reverse order, so host i is rank i and torus neighbours are one
# hop apart. TORUSGATHER_DIMS is exported so torusgather uses the same shape.
# Benchmarks allocate big receive buffers with SMPI_SHARED_MALLOC; the
# "local" mode shares them between simulated ranks (one buffer per call
# site), where this SimGrid's default did not (64 ranks x 64 MiB took 4.3 GB).
# --factors ideal (default) sets SMPI's bandwidth and latency correction
# factors to 1 and turns off its TCP cross-traffic (acknowledgement flows on
# the reverse path), so a message of m bytes to a neighbour costs exactly
# lat + m/bw, the model of the papers and of the bound (P-1)s/(2dB);
# --factors smpi keeps SMPI's defaults, calibrated on real TCP clusters
# (for large messages about 0.94 x bandwidth and 11.6 x latency).
# --sends: SMPI sends messages below 64 KiB eagerly ("detached"), and this
# SimGrid (3.32) spends time proportional to the number of ranks on every
# such message it completes: a plain neighbour exchange of 33 rounds on
# 12x12x12 took 48.5 s of wall-clock, 15.1 s with synchronous sends. Both
# start the transfer when the receive is posted, so simulated times barely
# differ (4x4x4: the vendor's 8-byte allgather 9.10 vs 9.11 us; torusgather's
# rows equal). "auto" (default): eager up to 1024 ranks (the lab's
# scenarios, unchanged), synchronous above. With an --overhead, synchronous
# sends pay the receiver's share at the sender (see below).
set -euo pipefail

# Machine presets: dims bw lat overhead limiter ranks-per-node node-bw node-lat
# pair-links ("-": none). Sources and assumptions: docs/machines.md.
preset_values() {
  case "$1" in
    ideal)  echo "4x4x4x4x2 10GBps 1us - - 1 1000GBps 0us 1" ;;
    bgq)    echo "4x4x4x4x2 1.8GBps 45ns 0.5us - 1 20GBps 0.2us 2" ;;
    tofud)  echo "4x4x4x2x3x2 6.8GBps 100ns 0.2us 76.2GBps 1 40GBps 0.2us 1" ;;
    gemini) echo "8x8x8 4.7GBps 100ns 0.5us 33.2GBps 2 20GBps 0.2us 1" ;;
    tpu-v4) echo "8x8x8 45GBps 1us 0.5us - 1 1000GBps 0us 1" ;;
    tofud-mesh) echo "4mx4mx2x2x3x2 6.8GBps 100ns 0.2us 76.2GBps 1 40GBps 0.2us 1" ;;
    tpu-v4-mesh) echo "2x4mx4m 45GBps 1us 0.5us - 1 1000GBps 0us 1" ;;
    *) return 1 ;;
  esac
}
presets="ideal, bgq, tofud, gemini, tpu-v4, tofud-mesh, tpu-v4-mesh"

dims="" bw="" lat="" allgather="" pdir="" factors="ideal" sharing="SPLITDUPLEX" limiter="" sends="auto"
overhead="" per_node="" node_bw="" node_lat="" preset="" pair_links="" node_sharing=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dims) dims="$2"; shift 2 ;;
    --bw) bw="$2"; shift 2 ;;
    --lat) lat="$2"; shift 2 ;;
    --allgather) allgather="$2"; shift 2 ;;
    --factors) factors="$2"; shift 2 ;;
    --sharing) sharing="$2"; shift 2 ;;
    --limiter) limiter="$2"; shift 2 ;;
    --overhead) overhead="$2"; shift 2 ;;
    --ranks-per-node) per_node="$2"; shift 2 ;;
    --node-bw) node_bw="$2"; shift 2 ;;
    --node-lat) node_lat="$2"; shift 2 ;;
    --node-sharing) node_sharing="$2"; shift 2 ;;
    --pair-links) pair_links="$2"; shift 2 ;;
    --preset) preset="$2"; shift 2 ;;
    --print-preset)
      v=$(preset_values "$2") || { echo "smpi-torus.sh: unknown preset '$2' (known: $presets)" >&2; exit 2; }
      read -r p_dims p_bw p_lat p_over p_lim p_k p_nbw p_nlat p_pair <<<"$v"
      printf 'dims=%s\nbw=%s\nlat=%s\noverhead=%s\nlimiter=%s\nranks_per_node=%s\nnode_bw=%s\nnode_lat=%s\npair_links=%s\n' \
        "$p_dims" "$p_bw" "$p_lat" "${p_over/#-/}" "${p_lim/#-/}" "$p_k" "$p_nbw" "$p_nlat" "$p_pair"
      exit 0 ;;
    --sends) sends="$2"; shift 2 ;;
    --cfg) extra+=("--cfg=$2"); shift 2 ;;
    --platform-dir) pdir="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "smpi-torus.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [ -n "$preset" ]; then
  v=$(preset_values "$preset") || { echo "smpi-torus.sh: unknown preset '$preset' (known: $presets)" >&2; exit 2; }
  read -r p_dims p_bw p_lat p_over p_lim p_k p_nbw p_nlat p_pair <<<"$v"
  dims=${dims:-$p_dims} bw=${bw:-$p_bw} lat=${lat:-$p_lat} per_node=${per_node:-$p_k} pair_links=${pair_links:-$p_pair}
  node_bw=${node_bw:-$p_nbw} node_lat=${node_lat:-$p_nlat}
  [ -z "$overhead" ] && [ "$p_over" != "-" ] && overhead=$p_over
  [ -z "$limiter" ] && [ "$p_lim" != "-" ] && limiter=$p_lim
fi
bw=${bw:-10GBps} lat=${lat:-1us} per_node=${per_node:-1} node_bw=${node_bw:-1000GBps} node_lat=${node_lat:-0us}
pair_links=${pair_links:-1}
case "$pair_links" in 1|2) ;; *) echo "smpi-torus.sh: --pair-links must be 1 or 2, not '$pair_links'" >&2; exit 2 ;; esac
if ! [[ "$per_node" =~ ^[1-9][0-9]*$ ]]; then
  echo "smpi-torus.sh: --ranks-per-node must be a positive integer, not '$per_node'" >&2
  exit 2
fi
if [ -z "$dims" ] || [ $# -eq 0 ]; then
  echo "usage: $0 --dims 8x8 [--bw 10GBps] [--lat 1us] [--allgather ALG] -- PROGRAM [ARGS...]" >&2
  exit 2
fi
if ! [[ "$dims" =~ ^[0-9]+m?(x[0-9]+m?)*$ ]]; then
  echo "smpi-torus.sh: malformed --dims '$dims' (expected e.g. 8x8, 4x4x4, or 8mx8mx4 where m marks an open axis)" >&2
  exit 2
fi
case "$sharing" in SPLITDUPLEX|SHARED|FATPIPE) ;; *) echo "smpi-torus.sh: --sharing must be SPLITDUPLEX, SHARED or FATPIPE" >&2; exit 2 ;; esac
case "$node_sharing" in ""|FATPIPE|SHARED) ;; *) echo "smpi-torus.sh: --node-sharing must be FATPIPE or SHARED" >&2; exit 2 ;; esac
command -v smpirun >/dev/null || { echo "smpi-torus.sh: smpirun not found (install simgrid)" >&2; exit 2; }

IFS=x read -r -a sides <<<"${dims//m/}"
nodes=1
for n in "${sides[@]}"; do nodes=$((nodes * n)); done
ranks=$((nodes * per_node))
reversed=""
for ((i = ${#sides[@]} - 1; i >= 0; i--)); do reversed+="${reversed:+,}${sides[i]}"; done
tg_dims="$dims"
[ "$per_node" -gt 1 ] && tg_dims="${dims}x${per_node}"

cleanup=""
if [ -z "$pdir" ]; then pdir=$(mktemp -d); cleanup="$pdir"; fi
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"' EXIT
mkdir -p "$pdir"
platform="$pdir/torus-$dims.xml"
hostfile="$pdir/torus-$dims.hosts"
cat >"$platform" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <!-- $dims torus, $nodes hosts of $per_node ranks; topo_parameters reversed so that host i is row-major node i -->
  <cluster id="torus" prefix="node-" radical="0-$((nodes - 1))" suffix="" speed="1Gf" core="$per_node"
           bw="$bw" lat="$lat" topology="TORUS" topo_parameters="$reversed"
           sharing_policy="$sharing" loopback_bw="$node_bw" loopback_lat="$node_lat"${limiter:+ limiter_link=\"$limiter\"}/>
</platform>
XML
for ((i = 0; i < nodes; i++)); do for ((j = 0; j < per_node; j++)); do echo "node-$i"; done; done >"$hostfile"
# A platform .so from a source next to this script, compiled once into
# ~/.cache/torusgather (the platform dir where that cannot be written).
platform_so() {
  local src cache so
  src="$(dirname "$(readlink -f "$0")")/$1"
  cache="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/torusgather"
  mkdir -p "$cache" 2>/dev/null || cache="$pdir"
  so="$cache/${1%.cpp}-$(sha1sum "$src" | cut -c1-12).so"
  if [ ! -f "$so" ]; then
    "${CXX:-g++}" -std=c++17 -O1 -shared -fPIC "$src" -o "$so.$$" -lsimgrid || { echo "smpi-torus.sh: cannot build $src" >&2; exit 2; }
    mv "$so.$$" "$so"
  fi
  echo "$so"
}
pair_env=()
if [[ "$dims" == *m* ]] || [ -n "$node_sharing" ]; then
  # Open axes, or the node memory link's sharing asked for: the same cluster
  # built link by link (smpi-mesh.cpp), without the links that would wrap
  # around an open axis, two links on a side of 2 where asked.
  so=$(platform_so smpi-mesh.cpp) || exit 2
  pair_env=(TG_SMPI_MESH_DIMS="$dims" TG_SMPI_MESH_BW="$bw" TG_SMPI_MESH_LAT="$lat" TG_SMPI_MESH_SHARING="$sharing"
            TG_SMPI_MESH_CORES="$per_node" TG_SMPI_MESH_LOOPBACK_BW="$node_bw" TG_SMPI_MESH_LOOPBACK_LAT="$node_lat"
            TG_SMPI_MESH_LOOPBACK_SHARING="${node_sharing:-FATPIPE}"
            TG_SMPI_MESH_LIMITER="$limiter" TG_SMPI_MESH_PAIR_LINKS="$pair_links")
  platform="$so"
  [ "$pair_links" = 2 ] && pair_env+=(TORUSGATHER_PAIR_LINKS=2)
elif [ "$pair_links" = 2 ]; then
  # The link SimGrid routes a side of 2 over (both ways): from the node
  # whose coordinate there is 0 to its neighbour (dimension j of SimGrid's,
  # reversed, numbering; hosts are numbered first, so ids are node indices).
  two_links="$pdir/torus-$dims.two-links"
  suffixes="_UP _DOWN"
  [ "$sharing" = SPLITDUPLEX ] || suffixes="-"
  awk -v sides="$reversed" -v suffixes="$suffixes" 'BEGIN {
    n = split(sides, s, ","); m = split(suffixes, suf, " "); nodes = 1
    for (j = 1; j <= n; j++) nodes *= s[j]
    stride = 1
    for (j = 1; j <= n; j++) {
      if (s[j] == 2)
        for (id = 0; id < nodes; id++)
          if (int(id / stride) % 2 == 0)
            for (k = 1; k <= m; k++)
              printf "torus_link_from_%d_to_%d%s\n", id, id + stride, suf[k] == "-" ? "" : suf[k]
      stride *= s[j]
    } }' >"$two_links"
  if [ -s "$two_links" ]; then
    so=$(platform_so smpi-two-links.cpp) || exit 2
    pair_env=(TG_SMPI_XML="$platform" TG_SMPI_TWO_LINKS="$two_links")
    platform="$so"
  fi
  pair_env+=(TORUSGATHER_PAIR_LINKS=2)
fi

# "0.5us" -> seconds, for SMPI's piecewise smpi/os and smpi/or.
seconds_of() {
  awk -v t="$1" 'BEGIN { n = t + 0; u = t; sub(/^[0-9.eE+-]+/, "", u);
    f = u == "s" ? 1 : u == "ms" ? 1e-3 : u == "us" ? 1e-6 : u == "ns" ? 1e-9 : -1;
    if (f < 0 || n <= 0) exit 1; printf "%g", n * f }' || { echo "smpi-torus.sh: bad time '$1' (e.g. 0.5us)" >&2; exit 2; }
}
# SMPI_SHARED_MALLOC (the buffers of a size not checked): "local" backs each
# call site with one memory of the full size, shared by every rank: P * s for
# a receive buffer, 16 GiB at 4096 ranks and 4 MiB, past this machine's
# memory. Above 1024 ranks "global" maps every such buffer onto one file of
# 2 GiB instead: 8 mappings for a 16 GiB buffer, some 17 per rank in all
# at 4096 ranks and 4 MiB, past Linux's default of 65530 per process
# (vm.max_map_count; the script says so). The times do not depend on the
# data (tpu-v4-mesh's 128 ranks at 4 MiB: the same either way).
shared_malloc=(--cfg=smpi/shared-malloc:local)
if [ "$ranks" -gt 1024 ]; then
  shared_malloc=(--cfg=smpi/shared-malloc:global --cfg=smpi/shared-malloc-blocksize:2147483648)
  max_maps=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)
  [ "$max_maps" -lt $((ranks * 24)) ] &&
    echo "smpi-torus.sh: vm.max_map_count is $max_maps; blocks of MiB on $ranks ranks may need $((ranks * 24)) (sysctl -w vm.max_map_count=$((ranks * 24)))" >&2
fi
cfg=(--cfg=smpi/simulate-computation:no "${shared_malloc[@]}"
     --log=root.thres:warning --log=smpi_config.thres:error --log=smpi_mpi.thres:error --log=smpi_pmpi.thres:error)
[ -n "$allgather" ] && cfg+=("--cfg=smpi/allgather:$allgather")
case "$factors" in
  ideal) cfg+=(--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0) ;;
  smpi) ;;
  *) echo "smpi-torus.sh: --factors must be ideal or smpi" >&2; exit 2 ;;
esac
# SMPI charges smpi/or only for eager sends, at the receiver, and smpi/os
# only to eager blocking sends; smpi/ois goes to every MPI_Isend. So with
# synchronous sends and an overhead, the sender pays both halves of a
# message below 64 KiB (the eager ones: 2 x overhead) and the receiver none.
# This moves the receiver's cost ahead of the transfer, where it cannot
# overlap other arrivals: docs/design.md, "Scale", gives how far the times
# move against eager sends on 512 ranks.
case "$sends" in
  auto) [ "$ranks" -gt 1024 ] && sends=synchronous || sends=eager ;;
  eager|synchronous) ;;
  *) echo "smpi-torus.sh: --sends must be auto, eager or synchronous" >&2; exit 2 ;;
esac
if [ "$sends" = synchronous ]; then
  cfg+=(--cfg=smpi/send-is-detached-thresh:0)
  if [ -n "$overhead" ]; then
    o=$(seconds_of "$overhead")
    both=$(awk -v o="$o" 'BEGIN { printf "%g", 2 * o }')
    # Piecewise: a size s takes the last segment whose start is below s.
    cfg+=("--cfg=smpi/os:0:$both:0;65535:$o:0" "--cfg=smpi/ois:0:$both:0;65535:$o:0" "--cfg=smpi/or:0:0:0")
  fi
elif [ -n "$overhead" ]; then
  # smpi/ois too: SMPI charges MPI_Isend (and the send half of its own
  # MPI_Sendrecv) smpi/ois, not smpi/os, and that is 0 unless set.
  o=$(seconds_of "$overhead")
  cfg+=("--cfg=smpi/os:0:$o:0" "--cfg=smpi/ois:0:$o:0" "--cfg=smpi/or:0:$o:0")
fi
cfg+=("${extra[@]}")
# SMPI writes a copy of the executable per simulated rank (its dlopen
# privatisation) to its temporary directory: in memory (/dev/shm) where that
# has room for them all, since writing them to disk took a sixth of a
# 4096-rank simulation's wall-clock. (smpirun takes its directory from
# TMPDIR; its -tmpdir option drops the next argument in SimGrid 3.32.)
tmpdir=()
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ -f "${1:-}" ]; then
  need_kb=$(( ranks * ($(stat -c %s "$1") / 1024 + 1) * 2 ))
  free_kb=$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')
  [ "${free_kb:-0}" -gt "$need_kb" ] && tmpdir=(TMPDIR=/dev/shm)
fi
# K > 1: torusgather is told that the last axis is a node's ranks.
node_env=()
[ "$per_node" -gt 1 ] && node_env=(TORUSGATHER_NODE_SIZE="$per_node")
env TORUSGATHER_DIMS="$tg_dims" "${node_env[@]}" "${pair_env[@]}" "${tmpdir[@]}" smpirun -np "$ranks" -platform "$platform" -hostfile "$hostfile" "${cfg[@]}" "$@"
